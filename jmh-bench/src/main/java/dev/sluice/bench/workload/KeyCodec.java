package dev.sluice.bench.workload;

/**
 * Maps a key index to a fixed-size key. The first 8 bytes are a bijective 64-bit mix of the index (SplitMix64's
 * finalizer, which is invertible), big-endian, so distinct indices give distinct keys and consecutive indices land far
 * apart in RocksDB's order — inserts are random writes as with YCSB's hashed keys, not appends. Bytes past the 8th are a
 * fixed filler. Keys must be at least 8 bytes.
 */
public final class KeyCodec {
    private final int keyBytes;

    public KeyCodec(int keyBytes) {
        if (keyBytes < 8) {
            throw new IllegalArgumentException("key.bytes must be at least 8, got " + keyBytes);
        }
        this.keyBytes = keyBytes;
    }

    public int keyBytes() {
        return keyBytes;
    }

    public byte[] key(long index) {
        byte[] k = new byte[keyBytes];
        long h = mix(index);
        for (int i = 0; i < 8; i++) {
            k[i] = (byte) (h >>> (56 - 8 * i));
        }
        for (int i = 8; i < keyBytes; i++) {
            k[i] = (byte) ('a' + (i % 26));
        }
        return k;
    }

    /** SplitMix64 finalizer: a bijection on 64-bit values. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
