package dev.sluice.core;

import java.util.Arrays;

/**
 * A range of keys in RocksDB's bytewise order (unsigned lexicographic). Each bound is either absent (unbounded),
 * inclusive or exclusive. The usual range is {@link #closedOpen(byte[], byte[])}: {@code [start, end)}.
 */
public final class KeyRange {
    private static final KeyRange ALL = new KeyRange(null, true, null, false);

    private final byte[] start;
    private final boolean startInclusive;
    private final byte[] end;
    private final boolean endInclusive;

    private KeyRange(byte[] start, boolean startInclusive, byte[] end, boolean endInclusive) {
        this.start = start == null ? null : start.clone();
        this.startInclusive = startInclusive;
        this.end = end == null ? null : end.clone();
        this.endInclusive = endInclusive;
    }

    public static KeyRange all() {
        return ALL;
    }

    /** {@code [start, end)}. */
    public static KeyRange closedOpen(byte[] start, byte[] end) {
        return new KeyRange(require(start, "start"), true, require(end, "end"), false);
    }

    /** {@code [start, end]}. */
    public static KeyRange closed(byte[] start, byte[] end) {
        return new KeyRange(require(start, "start"), true, require(end, "end"), true);
    }

    /** {@code (start, end)}. */
    public static KeyRange open(byte[] start, byte[] end) {
        return new KeyRange(require(start, "start"), false, require(end, "end"), false);
    }

    /** {@code [start, +∞)}. */
    public static KeyRange atLeast(byte[] start) {
        return new KeyRange(require(start, "start"), true, null, false);
    }

    /** {@code (start, +∞)}. */
    public static KeyRange greaterThan(byte[] start) {
        return new KeyRange(require(start, "start"), false, null, false);
    }

    /** {@code (-∞, end)}. */
    public static KeyRange lessThan(byte[] end) {
        return new KeyRange(null, true, require(end, "end"), false);
    }

    /** {@code (-∞, end]}. */
    public static KeyRange atMost(byte[] end) {
        return new KeyRange(null, true, require(end, "end"), true);
    }

    /** Every key that starts with {@code prefix}. */
    public static KeyRange prefix(byte[] prefix) {
        require(prefix, "prefix");
        byte[] next = nextPrefix(prefix);
        return next == null ? atLeast(prefix) : closedOpen(prefix, next);
    }

    private static byte[] require(byte[] b, String what) {
        if (b == null) {
            throw new IllegalArgumentException(
                    "KeyRange " + what + " must not be null (use all()/atLeast()/lessThan() for unbounded)");
        }
        return b;
    }

    /** Smallest key greater than every key with this prefix, or null if none (prefix is all 0xFF). */
    static byte[] nextPrefix(byte[] prefix) {
        byte[] n = prefix.clone();
        for (int i = n.length - 1; i >= 0; i--) {
            if (n[i] != (byte) 0xFF) {
                n[i]++;
                return Arrays.copyOf(n, i + 1);
            }
        }
        return null;
    }

    public byte[] start() {
        return start == null ? null : start.clone();
    }

    public boolean startInclusive() {
        return startInclusive;
    }

    public byte[] end() {
        return end == null ? null : end.clone();
    }

    public boolean endInclusive() {
        return endInclusive;
    }

    byte[] startRef() {
        return start;
    }

    byte[] endRef() {
        return end;
    }

    /** Whether {@code key} lies in the range. */
    public boolean contains(byte[] key) {
        if (start != null) {
            int c = Arrays.compareUnsigned(key, start);
            if (c < 0 || (c == 0 && !startInclusive)) {
                return false;
            }
        }
        return !pastEnd(key);
    }

    /** Whether {@code key} lies beyond the end bound. */
    boolean pastEnd(byte[] key) {
        if (end == null) {
            return false;
        }
        int c = Arrays.compareUnsigned(key, end);
        return c > 0 || (c == 0 && !endInclusive);
    }

    @Override
    public String toString() {
        return (start == null ? "(-inf" : (startInclusive ? "[" : "(") + hex(start)) + ", "
                + (end == null ? "+inf)" : hex(end) + (endInclusive ? "]" : ")"));
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder("0x");
        for (int i = 0; i < Math.min(b.length, 16); i++) {
            sb.append(String.format("%02x", b[i]));
        }
        return b.length > 16 ? sb.append("…").toString() : sb.toString();
    }
}
