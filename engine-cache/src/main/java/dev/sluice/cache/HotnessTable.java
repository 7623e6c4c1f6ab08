package dev.sluice.cache;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Calcspar's global block-hotness table (§4.3): the key space cut into blocks of about {@code blockBytes} of SST data,
 * each with an exponentially smoothed access count.
 *
 * <h2>Blocks</h2>
 *
 * A block is identified by the 8-byte big-endian prefix of its first key (shorter keys are padded with zero bytes).
 * Boundaries come from the SST files' metadata (smallest key, largest key, file size): each file's prefix range is cut
 * into {@code ceil(size / blockBytes)} equal parts, the starts of every file of every level are merged, sorted and
 * deduplicated, and a block 0 starting at the empty key covers what lies before all files. This reads no data; it
 * assumes keys are spread evenly within a file's prefix range (Mixgraph's prefix-clustered keys are, within a prefix).
 * Keys that share their first 8 bytes always fall in one block. The block of a key is the last start ≤ its prefix
 * (binary search). The key range of block i is {@code [start_i, start_{i+1})} with trailing zero bytes trimmed, so a
 * short key lands in the block its padded prefix selects.
 *
 * <h2>Hotness</h2>
 *
 * Exponential smoothing {@code s_t = α · c_t + (1 − α) · s_{t−1}} over periods t, c_t being the accesses in period t,
 * computed incrementally: {@link #decay} at each period boundary multiplies every value by {@code 1 − α}, and {@link
 * #record} adds {@code α} (a CAS on the float's bits). So between two boundaries a value is {@code (1 − α) · s_{t−1} + α
 * · (accesses so far)}. On a new layout ({@link #rebuild}) each new block starts with the hotness of the old block that
 * held its start.
 *
 * <h2>Memory</h2>
 *
 * 12 bytes per block (8 for the start, 4 for the smoothed value): one block per 256 KiB of SST data is 4096 blocks per
 * GiB, 48 KiB per GiB ({@link #memoryBytes}; {@code HotnessTableTest} measures it against Calcspar's 64 KiB per GiB).
 *
 * <p>Thread-safety: {@link #record}, {@link #blockOf}, {@link #hotness} may be called from any thread; {@link #decay}
 * from one thread at a time. A table is otherwise immutable; a new layout makes a new table.
 */
public final class HotnessTable {
    /** Unsigned 8-byte prefixes of the block starts, ascending, starts[0] = 0. */
    private final long[] starts;

    /** Float bits of the smoothed values. */
    private final AtomicIntegerArray hot;

    private final float alpha;

    private HotnessTable(long[] starts, float[] hot, double alpha) {
        if (!(alpha > 0 && alpha <= 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1], got " + alpha);
        }
        this.starts = starts;
        this.alpha = (float) alpha;
        this.hot = new AtomicIntegerArray(starts.length);
        for (int i = 0; i < hot.length; i++) {
            this.hot.set(i, Float.floatToRawIntBits(hot[i]));
        }
    }

    /** One SST file as the layout sees it. */
    public record Extent(byte[] smallestKey, byte[] largestKey, long sizeBytes) {}

    /** A table with the single block [empty key, ∞) and smoothing weight {@code alpha} ∈ (0, 1]. */
    public static HotnessTable empty(double alpha) {
        return new HotnessTable(new long[] {0}, new float[1], alpha);
    }

    /** A table whose blocks cut {@code files} into pieces of about {@code blockBytes}. */
    public static HotnessTable of(List<Extent> files, long blockBytes, double alpha) {
        return empty(alpha).rebuild(files, blockBytes);
    }

    /** A new table for a new file layout; each block keeps the hotness of the block of this table holding its start. */
    public HotnessTable rebuild(List<Extent> files, long blockBytes) {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be positive, got " + blockBytes);
        }
        List<Long> all = new ArrayList<>();
        all.add(0L);
        for (Extent f : files) {
            BigInteger a = unsigned(prefix(f.smallestKey()));
            BigInteger b = unsigned(prefix(f.largestKey()));
            if (b.compareTo(a) < 0) {
                BigInteger t = a;
                a = b;
                b = t;
            }
            long n = Math.max(1, (f.sizeBytes() + blockBytes - 1) / blockBytes);
            BigInteger span = b.subtract(a);
            BigInteger bn = BigInteger.valueOf(n);
            for (long j = 0; j < n; j++) {
                all.add(a.add(span.multiply(BigInteger.valueOf(j)).divide(bn)).longValue());
            }
        }
        long[] s = all.stream().mapToLong(Long::longValue).toArray();
        Long[] boxed = Arrays.stream(s).boxed().toArray(Long[]::new);
        Arrays.sort(boxed, Long::compareUnsigned);
        long[] sorted = new long[boxed.length];
        int m = 0;
        for (Long v : boxed) {
            if (m == 0 || sorted[m - 1] != v) {
                sorted[m++] = v;
            }
        }
        long[] starts = Arrays.copyOf(sorted, m);
        float[] h = new float[m];
        for (int i = 0; i < m; i++) {
            h[i] = (float) hotness(indexOf(this.starts, starts[i]));
        }
        return new HotnessTable(starts, h, alpha);
    }

    public int blocks() {
        return starts.length;
    }

    /** The block holding {@code key}. */
    public int blockOf(byte[] key) {
        return indexOf(starts, prefix(key));
    }

    /** Counts one access to the block holding {@code key}. */
    public void record(byte[] key) {
        int b = blockOf(key);
        hot.getAndUpdate(b, bits -> Float.floatToRawIntBits(Float.intBitsToFloat(bits) + alpha));
    }

    /** Ends a period: every value is multiplied by {@code 1 − α}. */
    public void decay() {
        float keep = 1 - alpha;
        for (int i = 0; i < hot.length(); i++) {
            hot.getAndUpdate(i, bits -> Float.floatToRawIntBits(Float.intBitsToFloat(bits) * keep));
        }
    }

    public double hotness(int block) {
        return Float.intBitsToFloat(hot.get(block));
    }

    /** Up to {@code n} blocks with hotness above {@code min}, hottest first. */
    public int[] hottest(int n, double min) {
        int nb = hot.length();
        float[] h = new float[nb];
        Integer[] idx = new Integer[nb];
        int k = 0;
        for (int i = 0; i < nb; i++) {
            h[i] = Float.intBitsToFloat(hot.get(i));
            if (h[i] > min) {
                idx[k++] = i;
            }
        }
        Integer[] cand = Arrays.copyOf(idx, k);
        Arrays.sort(cand, (x, y) -> Float.compare(h[y], h[x]));
        int[] out = new int[Math.min(n, k)];
        for (int i = 0; i < out.length; i++) {
            out[i] = cand[i];
        }
        return out;
    }

    /** The first key of block i's range (inclusive); empty for block 0. */
    public byte[] blockStart(int block) {
        return trimmedKey(starts[block]);
    }

    /** The end of block i's range (exclusive), or null for the last block. */
    public byte[] blockEnd(int block) {
        return block + 1 < starts.length ? trimmedKey(starts[block + 1]) : null;
    }

    /** Bytes held by the table's per-block arrays (12 per block) plus the table object and the array headers. */
    public long memoryBytes() {
        return 12L * starts.length + 64;
    }

    static long prefix(byte[] key) {
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = (p << 8) | (i < key.length ? key[i] & 0xff : 0);
        }
        return p;
    }

    private static BigInteger unsigned(long v) {
        BigInteger b = BigInteger.valueOf(v & Long.MAX_VALUE);
        return v < 0 ? b.setBit(63) : b;
    }

    private static byte[] trimmedKey(long prefix) {
        byte[] k = new byte[8];
        for (int i = 7; i >= 0; i--) {
            k[i] = (byte) prefix;
            prefix >>>= 8;
        }
        int n = 8;
        while (n > 0 && k[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(k, n);
    }

    /** Last index i with starts[i] ≤ p (unsigned); starts[0] = 0 so there is always one. */
    private static int indexOf(long[] starts, long p) {
        int lo = 0, hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Long.compareUnsigned(starts[mid], p) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
