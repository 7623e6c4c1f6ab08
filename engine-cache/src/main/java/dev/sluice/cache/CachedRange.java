package dev.sluice.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One cached key range {@code [start, end)} of a partition: every live key of the range as one engine snapshot saw it,
 * packed into one byte array, plus an {@link Overlay} of the keys written since (write-through). A key of the range that
 * is in neither is known to be absent. A range is either a prefetched block (Calcspar's 256 KiB EBS block, §4.3) or one
 * key admitted on a miss.
 *
 * <p>Memory: the keys and values, 8 bytes of offsets per entry and {@link #OVERHEAD} per range (no per-entry objects),
 * so a block of 272-byte entries costs about 1.03 bytes per byte of data where a per-entry cache costs 1.35.
 *
 * <p>Thread-safety: immutable except the overlay and the access counters, which are safe for concurrent use.
 */
final class CachedRange {
    /** Bytes charged per range on top of its arrays: the objects, array headers and the skip-list node. */
    static final int OVERHEAD = 192;
    /** Bytes charged per overlay entry on top of its key and value (map node, key wrapper, array headers). */
    static final int OVERLAY_ENTRY_OVERHEAD = 96;

    private static final AtomicIntegerFieldUpdater<CachedRange> HITS =
            AtomicIntegerFieldUpdater.newUpdater(CachedRange.class, "hits");

    final byte[] start;
    /** Exclusive; null = to the end of the key space. */
    final byte[] end;

    private final byte[] data;
    /** Entry i: key at [offsets[2i], offsets[2i+1]), value at [offsets[2i+1], offsets[2i+2]). */
    private final int[] offsets;

    final Overlay overlay;
    /** A prefetched block (true) or a key admitted on a miss (false). */
    final boolean block;

    private volatile int hits;
    private volatile long lastAccessNanos;
    /** Exponentially smoothed hits per period (same scale as {@link HotnessTable#hotness}). */
    private volatile double score;

    private CachedRange(
            byte[] start,
            byte[] end,
            byte[] data,
            int[] offsets,
            Overlay overlay,
            boolean block,
            double score,
            long nowNanos) {
        this.start = start;
        this.end = end;
        this.data = data;
        this.offsets = offsets;
        this.overlay = overlay;
        this.block = block;
        this.score = score;
        this.lastAccessNanos = nowNanos;
    }

    /**
     * The one-key range {@code [key, key + 0x00)} holding {@code value} (null = absent), last accessed at {@code
     * nowNanos} (the cache's clock).
     */
    static CachedRange single(byte[] key, byte[] value, long nowNanos) {
        byte[] start = key.clone();
        if (value == null) {
            return new CachedRange(
                    start, successor(key), new byte[0], new int[] {0}, new Overlay(), false, 0, nowNanos);
        }
        byte[] data = new byte[key.length + value.length]; // sized exactly: one is made per admitted miss
        System.arraycopy(key, 0, data, 0, key.length);
        System.arraycopy(value, 0, data, key.length, value.length);
        return new CachedRange(
                start, successor(key), data, new int[] {0, key.length, data.length}, new Overlay(), false, 0, nowNanos);
    }

    /** The smallest key greater than {@code key}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    boolean covers(byte[] key) {
        return Arrays.compareUnsigned(start, key) <= 0 && (end == null || Arrays.compareUnsigned(key, end) < 0);
    }

    boolean overlaps(byte[] from, byte[] to) {
        return (to == null || Arrays.compareUnsigned(start, to) < 0)
                && (end == null || Arrays.compareUnsigned(from, end) < 0);
    }

    /**
     * The value of {@code key} (which this range covers), or null if it is absent. The caller checks {@link #covers}.
     */
    byte[] get(byte[] key) {
        byte[] o = overlay.get(key);
        if (o != null) {
            return o == Overlay.ABSENT ? null : o.clone();
        }
        int i = indexOf(key);
        return i < 0 ? null : Arrays.copyOfRange(data, offsets[2 * i + 1], offsets[2 * i + 2]);
    }

    /** Counts a hit (for the proactive policy's score and the passive policy's recency). */
    void touch(long nowNanos) {
        HITS.incrementAndGet(this);
        if (nowNanos - lastAccessNanos > 1_000_000) {
            lastAccessNanos = nowNanos;
        }
    }

    /** Ends a period: {@code score = α·hits + (1 − α)·score}, hits reset. Prefetch thread only. */
    void decay(double alpha) {
        score = alpha * HITS.getAndSet(this, 0) + (1 - alpha) * score;
    }

    double score() {
        return score;
    }

    long lastAccessNanos() {
        return lastAccessNanos;
    }

    int entries() {
        return (offsets.length - 1) / 2;
    }

    /** Bytes this range holds now, overlay included. */
    long bytes() {
        return data.length + 4L * offsets.length + OVERHEAD + overlay.bytes();
    }

    /**
     * This range with the overlay's current entries folded into the array; the new range shares the overlay, so
     * writes that land meanwhile still apply. Returns the folded overlay entries, which the caller removes from the
     * overlay (each only if unchanged) once the new range is installed.
     */
    CachedRange merged(List<Map.Entry<Overlay.Key, byte[]>> folded) {
        List<Map.Entry<Overlay.Key, byte[]>> writes = new ArrayList<>(overlay.entries());
        writes.sort(
                (a, b) -> Arrays.compareUnsigned(a.getKey().bytes(), b.getKey().bytes()));
        Builder b = new Builder();
        int i = 0, n = entries(), w = 0;
        while (i < n || w < writes.size()) {
            int c;
            if (i >= n) {
                c = 1;
            } else if (w >= writes.size()) {
                c = -1;
            } else {
                c = Arrays.compareUnsigned(
                        data,
                        offsets[2 * i],
                        offsets[2 * i + 1],
                        writes.get(w).getKey().bytes(),
                        0,
                        writes.get(w).getKey().bytes().length);
            }
            if (c < 0) {
                b.add(data, offsets[2 * i], offsets[2 * i + 1], offsets[2 * i + 2]);
                i++;
            } else {
                Map.Entry<Overlay.Key, byte[]> e = writes.get(w++);
                if (e.getValue() != Overlay.ABSENT) {
                    b.add(e.getKey().bytes(), e.getValue());
                }
                if (c == 0) {
                    i++;
                }
            }
        }
        folded.addAll(writes);
        CachedRange r = b.build(start, end, overlay, block, score, lastAccessNanos);
        r.hits = hits;
        return r;
    }

    private int indexOf(byte[] key) {
        int lo = 0, hi = entries() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Arrays.compareUnsigned(data, offsets[2 * mid], offsets[2 * mid + 1], key, 0, key.length);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "CachedRange[" + entries() + " entries, " + (block ? "block" : "key") + ", overlay " + overlay.size()
                + "]";
    }

    /** Packs entries visited in ascending key order. */
    static final class Builder {
        private byte[] data = new byte[1024];
        /** offsets[0] = 0; entry i's key ends at offsets[2i+1] and its value at offsets[2i+2]. */
        private int[] offsets = new int[33];

        private int size, n;
        private byte[] lastKey;

        void add(byte[] key, byte[] value) {
            if (lastKey != null && Arrays.compareUnsigned(lastKey, key) >= 0) {
                throw new IllegalArgumentException("keys must be added in ascending order");
            }
            lastKey = key;
            append(key, 0, key.length);
            append(value, 0, value.length);
        }

        private void add(byte[] src, int keyFrom, int valueFrom, int valueTo) {
            lastKey = Arrays.copyOfRange(src, keyFrom, valueFrom);
            append(src, keyFrom, valueFrom);
            append(src, valueFrom, valueTo);
        }

        /** Appends a key (even call) or a value (odd call) and records where it ends. */
        private void append(byte[] src, int from, int to) {
            int len = to - from;
            if (size + len > data.length) {
                data = Arrays.copyOf(data, Math.max(data.length * 2, size + len));
            }
            System.arraycopy(src, from, data, size, len);
            size += len;
            n++;
            if (n >= offsets.length) {
                offsets = Arrays.copyOf(offsets, offsets.length * 2 + 1);
            }
            offsets[n] = size;
        }

        byte[] lastKey() {
            return lastKey;
        }

        int entries() {
            return n / 2;
        }

        long bytes() {
            return size;
        }

        /** The range of the entries added, last accessed at {@code nowNanos} (the cache's clock). */
        CachedRange build(byte[] start, byte[] end, Overlay overlay, boolean block, double score, long nowNanos) {
            return new CachedRange(
                    start,
                    end,
                    Arrays.copyOf(data, size),
                    Arrays.copyOf(offsets, n + 1),
                    overlay,
                    block,
                    score,
                    nowNanos);
        }
    }

    /**
     * Keys written in a range since its snapshot, with their current values ({@link #ABSENT} for a delete). Shared by a
     * fill in progress and the range it installs, and by a range and its merged successor.
     */
    static final class Overlay {
        /** The value of a deleted key (compared by identity). */
        static final byte[] ABSENT = new byte[0];

        private final ConcurrentHashMap<Key, byte[]> map = new ConcurrentHashMap<>();
        private final AtomicLong bytes = new AtomicLong();
        /** Set when a write could not be read back: the range may be stale and must not answer. */
        private volatile boolean poisoned;

        byte[] get(byte[] key) {
            return map.isEmpty() ? null : map.get(new Key(key));
        }

        void put(byte[] key, byte[] value) {
            Key k = new Key(key.clone());
            byte[] old = map.put(k, value);
            bytes.addAndGet(weight(k, value) - (old == null ? 0 : weight(k, old)));
        }

        /** Removes {@code key} if it still maps to exactly {@code value} (the same array). */
        void removeIfSame(Key key, byte[] value) {
            if (map.remove(key, value)) {
                bytes.addAndGet(-weight(key, value));
            }
        }

        List<Map.Entry<Key, byte[]>> entries() {
            List<Map.Entry<Key, byte[]>> out = new ArrayList<>(map.size());
            for (Map.Entry<Key, byte[]> e : map.entrySet()) {
                out.add(Map.entry(e.getKey(), e.getValue()));
            }
            return out;
        }

        int size() {
            return map.size();
        }

        long bytes() {
            return bytes.get();
        }

        void poison() {
            poisoned = true;
        }

        boolean poisoned() {
            return poisoned;
        }

        private static long weight(Key k, byte[] v) {
            return k.bytes().length + v.length + OVERLAY_ENTRY_OVERHEAD;
        }

        /** A key compared by content. */
        static final class Key {
            private final byte[] bytes;
            private final int hash;

            Key(byte[] bytes) {
                this.bytes = bytes;
                this.hash = Arrays.hashCode(bytes);
            }

            byte[] bytes() {
                return bytes;
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
            }

            @Override
            public int hashCode() {
                return hash;
            }
        }
    }
}
