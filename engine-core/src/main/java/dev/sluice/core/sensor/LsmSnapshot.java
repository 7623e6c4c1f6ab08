package dev.sluice.core.sensor;

import java.util.List;

/**
 * What one partition's LSM tree looked like at one control tick: engine-neutral, immutable, cheap to copy. Every
 * controller reads only this (docs/architecture.md §2.1). Counters named "cumulative" grow from the partition's open; the
 * {@code *Delta} fields hold the change since the previous snapshot, over {@code intervalNanos}.
 *
 * @param partition partition (tenant) name, or {@code "*"} for a node aggregate
 * @param timeNanos the control plane's ticker time when sampled
 * @param intervalNanos time since the previous snapshot of this partition; 0 for the first one
 * @param memtableBytes active plus not-yet-flushed immutable memtables (RocksDB {@code cur-size-all-mem-tables})
 * @param activeMemtableBytes the active memtable only
 * @param memtableBudgetBytes write_buffer_size × max_write_buffer_number: what the memory buffer may hold before a stall
 * @param immutableMemtables immutable memtables waiting for flush
 * @param writeBufferSize current write_buffer_size (ADOC's "batch size")
 * @param maxWriteBufferNumber current max_write_buffer_number
 * @param l0SlowdownTrigger level0_slowdown_writes_trigger
 * @param l0StopTrigger level0_stop_writes_trigger
 * @param levels L0..Ln, index = level number
 * @param pendingCompactionBytes RocksDB's estimate of bytes compaction must rewrite to bring every level under target
 * @param softPendingLimit soft_pending_compaction_bytes_limit (0 = disabled)
 * @param hardPendingLimit hard_pending_compaction_bytes_limit (0 = disabled)
 * @param stall current write-stall condition
 * @param stallMicros cumulative microseconds writers spent stalled (Statistics STALL_MICROS)
 * @param runningFlushes flushes running now
 * @param runningCompactions compactions running now
 * @param maxBackgroundJobs current max_background_jobs
 * @param autoCompactionsDisabled whether automatic compactions are switched off
 * @param flushBytes cumulative bytes written by flushes
 * @param compactionReadBytes cumulative bytes read by compactions
 * @param compactionWriteBytes cumulative bytes written by compactions
 * @param walBytes cumulative bytes written to the WAL
 * @param ops cumulative user operations
 * @param opsDelta user operations during the interval
 * @param io cumulative I/O per class (from the priority Env, else estimated from Statistics)
 * @param ioDelta I/O per class during the interval
 * @param admissionRate current admission rate in requests/s; {@code Double.POSITIVE_INFINITY} when no gate limits
 * @param admissionQueued requests waiting in the admission queue now
 * @param l0MergeProgress how far the running compactions that move L0 files into a deeper level have read their input,
 *     in [0, 1] (RocksDB thread status: bytes read / total input bytes, summed over the jobs' threads); -1 when none
 *     runs or the progress is unknown
 * @param intraL0MergeBytes input bytes of the running intra-L0 compactions (L0 files merged into one L0 file, which
 *     RocksDB runs when the base level is busy): their output stays in L0, so they drain nothing; 0 when none runs
 * @param health the partition's background-error state when sampled ({@link PartitionHealth#OK} when healthy)
 * @param l0CompactionTrigger level0_file_num_compaction_trigger; -1 when unknown (e.g. a Cassandra table, which has
 *     no such trigger)
 * @param maxSubcompactions current max_subcompactions (threads one L0→base compaction may split into); -1 when the
 *     engine has no such knob (a Cassandra table)
 */
public record LsmSnapshot(
        String partition,
        long timeNanos,
        long intervalNanos,
        long memtableBytes,
        long activeMemtableBytes,
        long memtableBudgetBytes,
        int immutableMemtables,
        long writeBufferSize,
        int maxWriteBufferNumber,
        int l0SlowdownTrigger,
        int l0StopTrigger,
        List<LevelInfo> levels,
        long pendingCompactionBytes,
        long softPendingLimit,
        long hardPendingLimit,
        StallCondition stall,
        long stallMicros,
        int runningFlushes,
        int runningCompactions,
        int maxBackgroundJobs,
        boolean autoCompactionsDisabled,
        long flushBytes,
        long compactionReadBytes,
        long compactionWriteBytes,
        long walBytes,
        OpCounters ops,
        OpCounters opsDelta,
        IoStats io,
        IoStats ioDelta,
        double admissionRate,
        int admissionQueued,
        double l0MergeProgress,
        long intraL0MergeBytes,
        PartitionHealth health,
        int l0CompactionTrigger,
        int maxSubcompactions) {

    public LsmSnapshot {
        levels = List.copyOf(levels);
        if (health == null) {
            health = PartitionHealth.OK;
        }
    }

    /** Memory-buffer watermark in [0, 1+]: memtableBytes / memtableBudgetBytes (CruiseDB's y_k). */
    public double memtableWatermark() {
        return memtableBudgetBytes <= 0 ? 0 : (double) memtableBytes / memtableBudgetBytes;
    }

    /**
     * Watermark of the data not yet merged into L1: (memtableBytes + the L0 bytes not yet merged) / memtableBudgetBytes,
     * in [0, ∞). With the {@code cruise-sp-lsm} profile L0 is only a transit stage between the memtables and L1, so what
     * it still holds is what CruiseDB's SP-LSM would still hold in its memory buffer (CruiseDB §IV: memtables merge
     * straight into L1); this is that buffer's fill level.
     *
     * <p>L0 bytes not yet merged = the files no running compaction has taken ({@link #waitingL0Bytes}), plus the input
     * of running intra-L0 compactions ({@link #intraL0MergeBytes}: their output lands in L0 again), plus the unread part
     * of the files a merge into a deeper level has taken (({@link #inMergeL0Bytes} − intra-L0 input) × (1 − {@link
     * #l0MergeProgress})). RocksDB deletes a merge's inputs only when the whole merge ends; counting them in full froze
     * the watermark for the length of a long L0→L1 merge (measured on the emulated disk: a merge of 8 files held it flat
     * for ~60 s), and leaving them out hid a merge starved by user I/O (L0 grew to 14 files while this watermark stayed
     * under 45 %). Crediting the merge's read progress lets the watermark fall while a merge drains and stay up while it
     * is stuck. Crediting an intra-L0 compaction's progress too made the watermark sink while L0 did not drain at all and
     * jump back (12 % → 50 % in one tick) when the merged file reappeared in L0 (measured on cruise-a-variant; fixed in
     * 76d31f5). Without a progress figure ({@code l0MergeProgress < 0}) files in a running merge into a deeper level are left
     * out. When the snapshot carries no file list for L0, the level's bytes are used. On a stock tree, where L0
     * legitimately holds many files, this is not a meaningful watermark.
     */
    public double unmergedWatermark() {
        if (memtableBudgetBytes <= 0) {
            return 0;
        }
        long taken = inMergeL0Bytes();
        long intra = Math.min(Math.max(0, intraL0MergeBytes), taken);
        double draining = l0MergeProgress < 0 ? 0 : (taken - intra) * (1 - Math.min(1, l0MergeProgress));
        return (memtableBytes + waitingL0Bytes() + intra + draining) / memtableBudgetBytes;
    }

    /** Bytes of the L0 files that no running compaction has taken (all of L0's bytes if the file list is absent). */
    public long waitingL0Bytes() {
        if (levels.isEmpty()) {
            return 0;
        }
        LevelInfo l0 = levels.get(0);
        if (l0.files().isEmpty()) {
            return l0.bytes();
        }
        long waiting = 0;
        for (SstFile f : l0.files()) {
            if (!f.beingCompacted()) {
                waiting += f.sizeBytes();
            }
        }
        return waiting;
    }

    /** Bytes of the L0 files a running compaction has taken (0 if the file list is absent). */
    public long inMergeL0Bytes() {
        if (levels.isEmpty()) {
            return 0;
        }
        long taken = 0;
        for (SstFile f : levels.get(0).files()) {
            if (f.beingCompacted()) {
                taken += f.sizeBytes();
            }
        }
        return taken;
    }

    public int l0Files() {
        return levels.isEmpty() ? 0 : levels.get(0).fileCount();
    }

    public long totalSstBytes() {
        long s = 0;
        for (LevelInfo l : levels) {
            s += l.bytes();
        }
        return s;
    }

    /** Interval length in seconds (0 for the first snapshot). */
    public double intervalSeconds() {
        return intervalNanos / 1e9;
    }

    /** User operations per second over the interval (0 for the first snapshot). */
    public double opsPerSecond() {
        return intervalNanos <= 0 ? 0 : opsDelta.total() / intervalSeconds();
    }

    /**
     * Write amplification: bytes the engine wrote (WAL + flush + compaction) per byte the user wrote, cumulative. 0 until
     * the user wrote something.
     */
    public double writeAmplification() {
        return ops.bytesWritten() <= 0
                ? 0
                : (double) (walBytes + flushBytes + compactionWriteBytes) / ops.bytesWritten();
    }

    /**
     * Read amplification: bytes read from files for user requests per byte returned to the user, cumulative. Needs
     * byte-accurate read counters (the priority Env); 0 when they are unknown or nothing was read.
     */
    public double readAmplification() {
        long dev = io.get(IoClass.USER_GET).bytes() + io.get(IoClass.USER_SCAN).bytes();
        if (io.get(IoClass.USER_GET).bytes() < 0 || ops.bytesRead() <= 0) {
            return 0;
        }
        return (double) dev / ops.bytesRead();
    }

    /**
     * Structural read amplification: L0 files plus the non-empty levels below L0, i.e. how many sorted runs a point
     * read probes at most (every L0 file may hold the key; each deeper level has one candidate file). Known without any
     * user read, so it is what an insert-only run can report (FlexEngine §5.3.2 reports read amplification while
     * compactions are deferred).
     */
    public int sortedRuns() {
        int runs = l0Files();
        for (int i = 1; i < levels.size(); i++) {
            if (levels.get(i).bytes() > 0) {
                runs++;
            }
        }
        return runs;
    }

    /** True while RocksDB delays or stops writes. */
    public boolean stalled() {
        return stall != StallCondition.NORMAL;
    }
}
