package dev.sluice.core.spi;

import dev.sluice.core.sensor.IoStats;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * A RocksDB Env shared by every partition of a node, plus what Sluice reads from and sets on it. The priority Env of
 * engine-ratelimit implements this; without it the node uses RocksDB's default Env and estimates I/O from Statistics.
 *
 * <p>Close order: every DB and Options using {@link #env()} must be closed before this.
 */
public interface StorageEnv extends AutoCloseable {
    org.rocksdb.Env env();

    /** Tells the Env which directory belongs to which partition (called before the partition's DB opens). */
    void registerPartition(String partition, Path dir);

    /**
     * Adds or updates entries of the partition's file-number → level map. Called synchronously from RocksDB's
     * {@code OnTableFileCreationStarted} (so a new file's level is known before its first write: flush → 0, compaction →
     * the job's output level), after compactions (trivial moves change a file's level), and with the full map each tick.
     * File numbers are never reused, so stale entries of deleted files are harmless; the Env may drop them.
     */
    void updateFileLevels(String partition, Map<Long, Integer> fileNumberToLevel);

    /** Node-wide cumulative I/O per class. */
    IoStats ioStats();

    /** Cumulative I/O of one partition, when the Env can attribute I/O to partitions. */
    Optional<IoStats> ioStats(String partition);

    /** Fraction of the device budget used in the last second (0 when no budget/device model is set). */
    double budgetUse();

    /**
     * I/Os the emulated device served on the overdraft path (punitive latency, Calcspar §2.3) since the Env opened; 0
     * without device emulation, -1 when this Env cannot tell. The node exports it as {@code sluice.device.overdraft.ops}.
     */
    default long deviceOverdraftOps() {
        return -1;
    }

    Optional<IoControl> control();

    @Override
    void close();
}
