package dev.sluice.core.control;

import dev.sluice.core.spi.IoControl;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The thin binding between decisions and an engine (docs/architecture.md §2.3). Every method is one knob, applied to one partition,
 * and returns once the engine accepted the change; none starts work that blocks the caller for long (manual compactions
 * are queued). {@code RocksActuators} maps these to rocksdbjni; the Cassandra plugin maps them to Cassandra's knobs.
 * A knob an engine cannot turn throws {@link UnsupportedOperationException} with a message naming it.
 *
 * <p>Thread-safety: called only from the control plane's tick thread.
 */
public interface Actuators {
    Set<String> partitions();

    /** Admission rate in requests/s for the partition's gate; {@code Double.POSITIVE_INFINITY} opens it. */
    void setAdmissionRate(String partition, double requestsPerSecond);

    /** RocksDB max_background_jobs (flushes get a quarter, ADOC §5). */
    void setMaxBackgroundJobs(String partition, int jobs);

    /**
     * How many threads one compaction that moves L0 into the base level may split into (RocksDB max_subcompactions:
     * the L0→L1 job, which no other job can run beside, is cut into key ranges merged in parallel). 1 = one thread.
     */
    void setMaxSubcompactions(String partition, int subcompactions);

    /** write_buffer_size in bytes (ADOC's batch size). */
    void setWriteBufferSize(String partition, long bytes);

    void setMaxWriteBufferNumber(String partition, int count);

    /**
     * Level size targets: max_bytes_for_level_base, max_bytes_for_level_multiplier and
     * max_bytes_for_level_multiplier_additional (may be empty).
     */
    void setLevelTargets(String partition, long levelBaseBytes, double multiplier, List<Integer> multiplierAdditional);

    /** level0_file_num_compaction_trigger, level0_slowdown_writes_trigger, level0_stop_writes_trigger. */
    void setL0Triggers(String partition, int compactionTrigger, int slowdownTrigger, int stopTrigger);

    /** soft/hard_pending_compaction_bytes_limit (0 disables the limit). */
    void setPendingCompactionLimits(String partition, long softBytes, long hardBytes);

    /** At most this many compactions at once in the partition (a ConcurrentTaskLimiter); negative = unlimited. */
    void setCompactionConcurrency(String partition, int maxConcurrent);

    void setAutoCompactions(String partition, boolean enabled);

    /**
     * Queues a manual compaction of exactly these files (names as in {@link dev.sluice.core.sensor.SstFile#name()}) into
     * {@code outputLevel}. Returns at once; the result is recorded as a control event.
     */
    void compactFiles(String partition, List<String> fileNames, int outputLevel, String reason);

    /**
     * Records a partition's compaction-deferral stage (0, 1 or 2); the default checks the partition exists and keeps
     * nothing (the stage is carried by the control event).
     */
    default void setDeferralStage(String partition, int stage) {
        if (!partitions().contains(partition)) {
            throw new IllegalArgumentException("no partition '" + partition + "'; have " + partitions());
        }
    }

    /** The priority Env's scheduler, when the node runs on it. */
    Optional<IoControl> io();
}
