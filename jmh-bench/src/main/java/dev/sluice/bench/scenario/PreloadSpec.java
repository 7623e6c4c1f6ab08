package dev.sluice.bench.scenario;

/**
 * What every stack is loaded with before the phases start: {@code keys} keys (indices {@code 0..keys-1}) of {@code
 * keyBytes} with values of {@code valueBytes}, written by {@code threads} threads in batches. Then, if {@code flush},
 * the memtables are flushed; then the runner waits up to {@code settleSeconds} for flushes and compactions to finish
 * (pending compaction bytes 0, none running) so every stack starts from a comparable tree.
 */
public record PreloadSpec(
        long keys, int keyBytes, int valueBytes, int threads, boolean flush, int settleSeconds, long clusterKeys) {
    public static final PreloadSpec NONE = new PreloadSpec(0, 16, 1024, 2, false, 0);

    /** Hashed key layout ({@code clusterKeys = 0}, see {@link dev.sluice.bench.workload.KeyCodec}). */
    public PreloadSpec(long keys, int keyBytes, int valueBytes, int threads, boolean flush, int settleSeconds) {
        this(keys, keyBytes, valueBytes, threads, flush, settleSeconds, 0);
    }

    public long bytes() {
        return keys * (keyBytes + (long) valueBytes);
    }
}
