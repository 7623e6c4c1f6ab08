package dev.sluice.core;

import java.util.Arrays;

/** A key and its value as returned by scans. The arrays are the caller's to keep. */
public record KeyValue(byte[] key, byte[] value) {
    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValue kv && Arrays.equals(key, kv.key) && Arrays.equals(value, kv.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "KeyValue[key=" + key.length + "B, value=" + value.length + "B]";
    }
}
