package dev.sluice.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BackgroundErrorReason;
import org.rocksdb.CompactionJobInfo;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.rocksdb.Status;
import org.rocksdb.TableFileCreationBriefInfo;
import org.rocksdb.TableFileCreationReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RocksDB event listener of one partition: counts flushes and compactions, remembers the background error RocksDB
 * reported until it is cleared (by {@link RocksPartition#resume()} or RocksDB's own recovery) and counts error-recovery
 * attempts (read by {@link RocksPartition#health()}), and tells the Env each new table file's level before the file is
 * written (flush → L0, compaction → the job's output level), which is what lets the priority Env classify compaction I/O
 * by level.
 *
 * <p>Callbacks run on RocksDB's threads; every field is thread-safe.
 */
final class PartitionListener extends AbstractEventListener {
    private static final Logger log = LoggerFactory.getLogger(PartitionListener.class);

    /** Receives file-number → level facts. */
    interface FileLevelSink {
        void fileLevel(long fileNumber, int level);
    }

    private final String partition;
    private final FileLevelSink sink;
    private final Map<Integer, Integer> outputLevelByJob = new ConcurrentHashMap<>();
    /** A background error as RocksDB reported it; {@code recoveriesEndedBefore}: recoveries ended before it came. */
    record BackgroundError(String text, boolean corruption, long recoveriesEndedBefore) {}

    private final AtomicReference<BackgroundError> backgroundError = new AtomicReference<>();
    final AtomicLong backgroundErrors = new AtomicLong();
    /**
     * OnErrorRecoveryBegin calls for out-of-space errors: the recoveries RocksDB's SstFileManager runs. RocksDB also calls
     * OnErrorRecoveryBegin before its automatic resume from a retryable I/O error, which ERROR_HANDLER_AUTORESUME_COUNT
     * already counts, and for a retryable compaction error, for which it starts no recovery at all; counting those here
     * made health wait for a recovery end that never came (a probe, 2026-11-29: after a retryable WAL write error, and a
     * real disk-full on the WAL, writes flowed again within seconds while health kept "auto-recovering" forever).
     */
    final AtomicLong recoveriesBegun = new AtomicLong();
    /** OnErrorRecoveryCompleted calls: RocksDB ended a recovery attempt, successful or not. */
    final AtomicLong recoveriesEnded = new AtomicLong();

    final AtomicLong flushesStarted = new AtomicLong();
    final AtomicLong flushesCompleted = new AtomicLong();
    final AtomicLong compactionsStarted = new AtomicLong();
    final AtomicLong compactionsCompleted = new AtomicLong();

    PartitionListener(String partition, FileLevelSink sink) {
        super(
                EnabledEventCallback.ON_FLUSH_BEGIN,
                EnabledEventCallback.ON_FLUSH_COMPLETED,
                EnabledEventCallback.ON_COMPACTION_BEGIN,
                EnabledEventCallback.ON_COMPACTION_COMPLETED,
                EnabledEventCallback.ON_TABLE_FILE_CREATION_STARTED,
                EnabledEventCallback.ON_BACKGROUND_ERROR,
                EnabledEventCallback.ON_ERROR_RECOVERY_BEGIN,
                EnabledEventCallback.ON_ERROR_RECOVERY_COMPLETED);
        this.partition = partition;
        this.sink = sink;
    }

    /** The background error not yet cleared, or null. */
    BackgroundError backgroundError() {
        return backgroundError.get();
    }

    /** Clears {@code seen} unless a newer error replaced it meanwhile. */
    void clearBackgroundError(BackgroundError seen) {
        if (seen != null) {
            backgroundError.compareAndSet(seen, null);
        }
    }

    @Override
    public void onFlushBegin(RocksDB db, FlushJobInfo info) {
        flushesStarted.incrementAndGet();
    }

    @Override
    public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
        flushesCompleted.incrementAndGet();
    }

    @Override
    public void onCompactionBegin(RocksDB db, CompactionJobInfo info) {
        compactionsStarted.incrementAndGet();
        outputLevelByJob.put(info.jobId(), info.outputLevel());
    }

    @Override
    public void onCompactionCompleted(RocksDB db, CompactionJobInfo info) {
        compactionsCompleted.incrementAndGet();
        outputLevelByJob.remove(info.jobId());
        // Trivial moves keep the file number but change the level.
        for (String f : info.outputFiles()) {
            long n = fileNumber(f);
            if (n >= 0) {
                sink.fileLevel(n, info.outputLevel());
            }
        }
    }

    @Override
    public void onTableFileCreationStarted(TableFileCreationBriefInfo info) {
        long n = fileNumber(info.getFilePath());
        if (n < 0) {
            return;
        }
        if (info.getReason() == TableFileCreationReason.FLUSH || info.getReason() == TableFileCreationReason.RECOVERY) {
            sink.fileLevel(n, 0);
        } else if (info.getReason() == TableFileCreationReason.COMPACTION) {
            Integer level = outputLevelByJob.get(info.getJobId());
            if (level != null) {
                sink.fileLevel(n, level);
            }
        }
    }

    /**
     * Records the error for {@link RocksPartition#health()}. rocksdbjni 9.10's {@code BackgroundErrorReason} knows only
     * RocksDB's reasons 0–3 (flush, compaction, write callback, memtable): for reasons 4–7 (MANIFEST write, flush or
     * MANIFEST write without WAL, async file open) its proxy throws before this method runs, prints the exception
     * ("Illegal value provided for BackgroundErrorReason: 5") and leaves it pending on RocksDB's thread, which the JVM
     * reports as "Exception in thread" at exit. Health does not depend on this call: it also reads RocksDB's
     * background-error ticker and probes whether writes are stopped, which gives the error's text. The same proxy
     * failure in {@link #onErrorRecoveryBegin} makes RocksDB skip its automatic recovery for those reasons, leaving it
     * to {@code resume()}.
     */
    @Override
    public void onBackgroundError(BackgroundErrorReason reason, Status status) {
        String msg = reason + ": " + (status == null ? "?" : status.getCodeString() + " " + status.getState());
        boolean corruption = status != null && status.getCode() == Status.Code.Corruption;
        backgroundErrors.incrementAndGet();
        backgroundError.set(new BackgroundError(msg, corruption, recoveriesEnded.get()));
        log.error("partition '{}': RocksDB background error {}", partition, msg);
    }

    /** RocksDB starts recovering on its own; returning true keeps its decision to do so. */
    @Override
    public boolean onErrorRecoveryBegin(BackgroundErrorReason reason, Status status) {
        if (status != null && status.getSubCode() == Status.SubCode.NoSpace) {
            recoveriesBegun.incrementAndGet();
        }
        log.warn("partition '{}': RocksDB is recovering from {} on its own", partition, reason);
        return true;
    }

    /** Called when a recovery attempt ends, whether it succeeded or not (RocksDB 9.10 passes the old error). */
    @Override
    public void onErrorRecoveryCompleted(Status oldError) {
        recoveriesEnded.incrementAndGet();
        log.info("partition '{}': RocksDB ended a recovery attempt", partition);
    }

    /** 123 from ".../000123.sst"; -1 if the name is not a table file. */
    static long fileNumber(String path) {
        if (path == null) {
            return -1;
        }
        int slash = path.lastIndexOf('/');
        String f = path.substring(slash + 1);
        if (!f.endsWith(".sst")) {
            return -1;
        }
        try {
            return Long.parseLong(f.substring(0, f.length() - 4));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
