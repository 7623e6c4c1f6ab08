package dev.sluice.bench.workload;

/**
 * Maps a key index to a fixed-size key. The first 8 bytes are a bijective 64-bit mix of the index (SplitMix64's
 * finalizer, which is invertible), big-endian, so distinct indices give distinct keys and consecutive indices land far
 * apart in RocksDB's order — inserts are random writes as with YCSB's hashed keys, not appends. Bytes past the 8th are a
 * fixed filler. Keys must be at least 8 bytes.
 */
public final class KeyCodec {
    private final int keyBytes;
    private final long clusterKeys;
    private final int clusterBits;

    public KeyCodec(int keyBytes) {
        this(keyBytes, 0);
    }

    /**
     * With {@code clusterKeys > 0} the layout is prefix-clustered (Mixgraph's key ranges): index i belongs to cluster
     * {@code c = i / clusterKeys}; the 8-byte prefix is {@code mix(c)} with its low {@code b} bits replaced by {@code i
     * mod clusterKeys} ({@code b} = bits needed for {@code clusterKeys − 1}). The keys of a cluster are adjacent in
     * RocksDB's order and clusters are scattered. Two clusters may collide only if their mixes agree in the top {@code
     * 64 − b} bits (odds about clusters² / 2^(65−b)).
     */
    public KeyCodec(int keyBytes, long clusterKeys) {
        if (keyBytes < 8) {
            throw new IllegalArgumentException("key.bytes must be at least 8, got " + keyBytes);
        }
        if (clusterKeys < 0 || clusterKeys > (1L << 32)) {
            throw new IllegalArgumentException("key.cluster.keys must be in [0, 2^32], got " + clusterKeys);
        }
        this.keyBytes = keyBytes;
        this.clusterKeys = clusterKeys;
        this.clusterBits = clusterKeys <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(clusterKeys - 1);
    }

    /** Keys per cluster, 0 for the hashed layout. */
    public long clusterKeys() {
        return clusterKeys;
    }

    public int keyBytes() {
        return keyBytes;
    }

    public byte[] key(long index) {
        byte[] k = new byte[keyBytes];
        long h;
        if (clusterKeys > 0) {
            long mask = clusterBits == 0 ? 0 : (1L << clusterBits) - 1;
            h = (mix(index / clusterKeys) & ~mask) | (index % clusterKeys);
        } else {
            h = mix(index);
        }
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
