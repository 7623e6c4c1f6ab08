package dev.sluice.core.sensor;

/**
 * Whether a partition's engine is healthy: the background error the engine reported (a failed flush, compaction or WAL
 * write) and what it did about it. Engine-neutral; read with {@code Partition.health()}, in every {@link LsmSnapshot}
 * and as the gauge {@code sluice.health}.
 *
 * @param backgroundError the background error the engine reported and has not recovered from: {@code "<job>: <code>
 *     <message>"} (e.g. {@code "COMPACTION: IOError ..."}), or the engine's error status alone when it did not say
 *     which job failed; {@code null} when healthy
 * @param writesStopped whether the engine refuses writes because of it (reads still work); writes then fail at once,
 *     without taking an admission token, until {@code Partition.resume()} or the engine's own recovery
 * @param recoverable whether {@code Partition.resume()} can clear it (false for corruption: restore from a backup)
 * @param autoRecovering whether the engine is retrying on its own (retryable I/O errors); the error clears itself if
 *     a retry succeeds
 * @param backgroundErrors background errors reported since the partition was opened (cumulative)
 */
public record PartitionHealth(
        String backgroundError,
        boolean writesStopped,
        boolean recoverable,
        boolean autoRecovering,
        long backgroundErrors) {

    /** Healthy, no background error so far. */
    public static final PartitionHealth OK = new PartitionHealth(null, false, true, false, 0);

    public boolean ok() {
        return backgroundError == null;
    }

    /** For the gauge: 0 healthy, 1 background error while writes are still accepted, 2 writes stopped. */
    public int level() {
        return backgroundError == null ? 0 : writesStopped ? 2 : 1;
    }
}
