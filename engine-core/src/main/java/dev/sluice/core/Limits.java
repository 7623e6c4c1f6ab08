package dev.sluice.core;

/** Argument checks shared by the API (package-private). */
final class Limits {
    private Limits() {}

    static void requireNonNull(Object o, String what) {
        if (o == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
    }

    static void checkKey(byte[] key, int max) {
        requireNonNull(key, "key");
        if (key.length == 0) {
            throw new IllegalArgumentException("key must not be empty");
        }
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
