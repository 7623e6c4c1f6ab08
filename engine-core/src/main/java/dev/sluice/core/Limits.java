package dev.sluice.core;

/** Argument checks shared by the API (package-private). */
final class Limits {
    private Limits() {}

    static void requireNonNull(Object o, String what) {
        if (o == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
    }

    /**
     * A key is any byte string up to {@code max} bytes, the empty one included, as in RocksDB and Redis (until 2026-11-27
     * Sluice refused the empty key, so {@code SET "" v} failed on the node server where Redis accepts it).
     */
    static void checkKey(byte[] key, int max) {
        requireNonNull(key, "key");
        if (key.length > max) {
            throw new IllegalArgumentException("key of " + key.length + " bytes exceeds limits.max.key.bytes = " + max);
        }
    }

    static void checkValue(byte[] value, int max) {
        requireNonNull(value, "value");
        if (value.length > max) {
            throw new IllegalArgumentException(
                    "value of " + value.length + " bytes exceeds limits.max.value.bytes = " + max);
        }
    }
}
