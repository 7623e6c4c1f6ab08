package dev.sluice.core;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.StorageEnv;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyMetaData;
import org.rocksdb.Env;
import org.rocksdb.HistogramType;
import org.rocksdb.LevelMetaData;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.OperationType;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileMetaData;
import org.rocksdb.Statistics;
import org.rocksdb.ThreadStatus;
import org.rocksdb.TickerType;

/**
 * Builds a partition's {@link LsmSnapshot} from RocksDB properties (the stall state included: {@code
 * is-write-stopped} and {@code actual-delayed-write-rate}), column-family metadata, current mutable options,
 * Statistics, the partition's own op counters, the admission gate, its health (background error) and, when present,
 * the priority Env's per-class I/O counters. Also pushes the full file → level map to the Env.
 *
 * <p>Cost: a handful of JNI property reads plus one metadata copy (proportional to the number of SST files); well under
 * a millisecond for a few hundred files, run once per tick. Thread-safety: {@link #sample} is synchronized (the tick
 * thread and an on-demand {@code node.sample()} may race).
 */
final class PartitionSampler {
    private final RocksPartition partition;
    private final StorageEnv env; // null on RocksDB's default Env
    private LsmSnapshot previous;

    PartitionSampler(RocksPartition partition, StorageEnv env) {
        this.partition = partition;
        this.env = env;
    }

    synchronized LsmSnapshot latest() {
        return previous;
    }

    /**
     * Samples the partition under its lifecycle lock (so never a closed DB). With {@code record}, the result becomes the
     * baseline for the next deltas; without, deltas are against the last recorded sample and nothing moves.
     */
    synchronized LsmSnapshot sample(long nowNanos, int maxBackgroundJobs, boolean record) {
        try {
            partition.enter();
        } catch (SluiceException e) {
            PartitionHealth down = partition.unavailableHealth();
            if (down == null) {
                throw e;
            }
            return unavailable(nowNanos, maxBackgroundJobs, down, record);
        }
        try {
            return doSample(nowNanos, maxBackgroundJobs, record);
        } finally {
            partition.exit();
        }
    }

    /**
     * The snapshot of a partition a failed {@link RocksPartition#resume()} left unavailable (its RocksDB is closed): the
     * last sampled shape, nothing running or moving, writes stopped, and the health saying why. The node's other
     * partitions go on being sampled and controlled (until 2026-11-28 this partition's exception failed every tick).
     */
    private LsmSnapshot unavailable(long nowNanos, int maxBackgroundJobs, PartitionHealth down, boolean record) {
        LsmSnapshot p = previous;
        AdmissionGate gate = partition.gate();
        // cumulative counters carried on, so that the first delta after a successful resume is not all since open
        OpCounters ops = p != null ? p.ops() : partition.counters();
        IoStats io = p != null
                ? p.io()
                : env == null ? IoStats.EMPTY : env.ioStats(partition.name()).orElse(IoStats.EMPTY);
        LsmSnapshot s = new LsmSnapshot(
                partition.name(),
                nowNanos,
                p == null ? 0 : nowNanos - p.timeNanos(),
                0,
                0,
                p == null ? 0 : p.memtableBudgetBytes(),
                0,
                p == null ? 0 : p.writeBufferSize(),
                p == null ? 0 : p.maxWriteBufferNumber(),
                p == null ? 0 : p.l0SlowdownTrigger(),
                p == null ? 0 : p.l0StopTrigger(),
                p == null ? List.of() : p.levels(),
                p == null ? 0 : p.pendingCompactionBytes(),
                p == null ? 0 : p.softPendingLimit(),
                p == null ? 0 : p.hardPendingLimit(),
                StallCondition.STOPPED,
                p == null ? 0 : p.stallMicros(),
                0,
                0,
                maxBackgroundJobs,
                p != null && p.autoCompactionsDisabled(),
                p == null ? 0 : p.flushBytes(),
                p == null ? 0 : p.compactionReadBytes(),
                p == null ? 0 : p.compactionWriteBytes(),
                p == null ? 0 : p.walBytes(),
                ops,
                OpCounters.ZERO,
                io,
                IoStats.EMPTY,
                gate.rate(),
                gate.queued(),
                -1,
                0,
                down,
                p == null ? 0 : p.l0CompactionTrigger(),
                p == null ? 1 : p.maxSubcompactions());
        if (record) {
            previous = s;
        }
        return s;
    }

    /** What the running compactions that take L0 files are doing to L0 (see {@link #l0Merges}). */
    record L0Merges(double progress, long intraL0Bytes) {
        static final L0Merges NONE = new L0Merges(-1, 0);
    }

    /** One running compaction job as RocksDB's thread status lists it: its thread's operation properties. */
    record CompactionThread(String dbName, long[] properties) {}

    /**
     * The running compactions that take L0 files, from RocksDB's thread status ({@code enable_thread_tracking}, set on
     * every partition). Operation properties: [1] = input level &lt;&lt; 32 | output level, [3] = total input bytes, [4] =
     * bytes read.
     *
     * <ul>
     *   <li>{@code progress}: of the jobs that move L0 into a deeper level, bytes read / total input bytes. RocksDB lists
     *       only the job's own thread, not its subcompaction threads, and that thread reports the bytes of its own key
     *       range, about 1/n of the input with n = max_subcompactions; the subcompactions run side by side, so the job's
     *       progress is estimated as n × that thread's share (capped at 1; once the thread waits for the others it reads
     *       ~1). An estimate: when RocksDB splits a job into fewer than n parts, it runs ahead of the truth. -1 when no
     *       such job is listed.
     *   <li>{@code intraL0Bytes}: total input of the intra-L0 jobs (output level 0). They merge L0 files into one L0
     *       file — RocksDB runs them when the base level is busy — so they drain nothing from L0.
     * </ul>
     */
    static L0Merges l0Merges(List<CompactionThread> threads, String db, int maxSubcompactions) {
        int n = Math.max(1, maxSubcompactions);
        long total = 0;
        long read = 0;
        long intra = 0;
        for (CompactionThread t : threads) {
            long[] p = t.properties();
            if (!db.equals(t.dbName()) || p == null || p.length < 5 || (p[1] >>> 32) != 0 || p[3] <= 0) {
                continue;
            }
            if ((p[1] & 0xffffffffL) == 0) {
                intra += p[3];
                continue;
            }
            total += p[3]; // COMPACTION_TOTAL_INPUT_BYTES
            read += Math.min(p[3], p[4] * n); // COMPACTION_BYTES_READ
        }
        return new L0Merges(total == 0 ? -1 : (double) read / total, intra);
    }

    private L0Merges l0Merges() {
        List<ThreadStatus> threads;
        try {
            threads = Env.getDefault().getThreadList();
        } catch (RocksDBException e) {
            return L0Merges.NONE;
        }
        List<CompactionThread> jobs = new ArrayList<>();
        for (ThreadStatus t : threads) {
            if (t.getOperationType() == OperationType.OP_COMPACTION) {
                jobs.add(new CompactionThread(t.getDbName(), t.getOperationProperties()));
            }
        }
        return l0Merges(jobs, partition.dir().toString(), partition.maxSubcompactions);
    }

    private LsmSnapshot doSample(long nowNanos, int maxBackgroundJobs, boolean record) {
        RocksDB db = partition.db();
        try {
            long memAll = db.getLongProperty("rocksdb.cur-size-all-mem-tables");
            long memActive = db.getLongProperty("rocksdb.cur-size-active-mem-table");
            int immutables = (int) db.getLongProperty("rocksdb.num-immutable-mem-table");
            long pending = db.getLongProperty("rocksdb.estimate-pending-compaction-bytes");
            int runningFlushes = (int) db.getLongProperty("rocksdb.num-running-flushes");
            int runningCompactions = (int) db.getLongProperty("rocksdb.num-running-compactions");
            boolean stopped = db.getLongProperty("rocksdb.is-write-stopped") != 0;
            boolean delayed = db.getLongProperty("rocksdb.actual-delayed-write-rate") != 0;
            MutableColumnFamilyOptions.MutableColumnFamilyOptionsBuilder o = db.getOptions();

            ColumnFamilyMetaData md = db.getColumnFamilyMetaData();
            List<LevelInfo> levels = levels(md, o, partition.options().levelCompactionDynamicLevelBytes());
            if (env != null) {
                Map<Long, Integer> map = new HashMap<>();
                for (LevelInfo l : levels) {
                    for (SstFile f : l.files()) {
                        map.put(f.fileNumber(), l.level());
                    }
                }
                env.updateFileLevels(partition.name(), map);
            }

            Statistics st = partition.statistics();
            long stallMicros = st.getTickerCount(TickerType.STALL_MICROS);
            long flushBytes = st.getTickerCount(TickerType.FLUSH_WRITE_BYTES);
            long compRead = st.getTickerCount(TickerType.COMPACT_READ_BYTES);
            long compWrite = st.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
            long walBytes = st.getTickerCount(TickerType.WAL_FILE_BYTES);

            IoStats io = env == null
                    ? statisticsIo(st, flushBytes, compRead, compWrite, walBytes)
                    : env.ioStats(partition.name())
                            .orElseGet(() -> statisticsIo(st, flushBytes, compRead, compWrite, walBytes));

            // Read from the write controller, not from the last EventListener#onStallConditionsChanged: RocksDB
            // delivers those callbacks after releasing the DB mutex, from whichever thread installed the new
            // version, so they can arrive out of order. Seen on 9.10: after a stop, a burst of callbacks ended with
            // NORMAL->STOPPED while is-write-stopped was 0, and the bench then read STOPPED in every later window of
            // a stack whose writes flowed. StallStateTest covers stop, delay and the return to NORMAL.
            StallCondition stall =
                    stopped ? StallCondition.STOPPED : delayed ? StallCondition.DELAYED : StallCondition.NORMAL;
            L0Merges merges = runningCompactions == 0 ? L0Merges.NONE : l0Merges();
            OpCounters ops = partition.counters();
            AdmissionGate gate = partition.gate();
            long interval = previous == null ? 0 : nowNanos - previous.timeNanos();
            LsmSnapshot s = new LsmSnapshot(
                    partition.name(),
                    nowNanos,
                    interval,
                    memAll,
                    memActive,
                    o.writeBufferSize() * (long) o.maxWriteBufferNumber(),
                    immutables,
                    o.writeBufferSize(),
                    o.maxWriteBufferNumber(),
                    o.level0SlowdownWritesTrigger(),
                    o.level0StopWritesTrigger(),
                    levels,
                    pending,
                    o.softPendingCompactionBytesLimit(),
                    o.hardPendingCompactionBytesLimit(),
                    stall,
                    stallMicros,
                    runningFlushes,
                    runningCompactions,
                    maxBackgroundJobs,
                    o.disableAutoCompactions(),
                    flushBytes,
                    compRead,
                    compWrite,
                    walBytes,
                    ops,
                    previous == null ? OpCounters.ZERO : ops.minus(previous.ops()),
                    io,
                    previous == null ? IoStats.EMPTY : io.minus(previous.io()),
                    gate.rate(),
                    gate.queued(),
                    merges.progress(),
                    merges.intraL0Bytes(),
                    partition.healthLocked(),
                    o.level0FileNumCompactionTrigger(),
                    partition.maxSubcompactions);
            if (record) {
                previous = s;
            }
            return s;
        } catch (RocksDBException e) {
            throw new SluiceException(
                    "partition '" + partition.name() + "': sampling failed: " + RocksPartition.describe(e), e);
        }
    }

    /**
     * I/O estimated from Statistics when there is no priority Env: byte counters for WAL, flush and compaction (all
     * compaction, reads and writes, under COMPACTION_HIGH), user file-read counts from the FILE_READ_{GET,MULTIGET,
     * DB_ITERATOR} histograms; unknown counters (read bytes, op counts of background classes, wait times) are -1.
     */
    private static IoStats statisticsIo(Statistics st, long flushBytes, long compRead, long compWrite, long walBytes) {
        Map<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        m.put(IoClass.WAL, new IoClassStats(-1, walBytes, -1, -1));
        m.put(IoClass.FLUSH, new IoClassStats(-1, flushBytes, -1, -1));
        m.put(
                IoClass.COMPACTION_HIGH,
                new IoClassStats(
                        st.getHistogramData(HistogramType.FILE_READ_COMPACTION_MICROS)
                                .getCount(),
                        compRead + compWrite,
                        -1,
                        -1));
        long gets = st.getHistogramData(HistogramType.FILE_READ_GET_MICROS).getCount()
                + st.getHistogramData(HistogramType.FILE_READ_MULTIGET_MICROS).getCount();
        m.put(IoClass.USER_GET, new IoClassStats(gets, -1, -1, -1));
        m.put(
                IoClass.USER_SCAN,
                new IoClassStats(
                        st.getHistogramData(HistogramType.FILE_READ_DB_ITERATOR_MICROS)
                                .getCount(),
                        -1,
                        -1,
                        -1));
        return new IoStats(IoStats.Source.STATISTICS, m);
    }

    static List<LevelInfo> levels(
            ColumnFamilyMetaData md, MutableColumnFamilyOptions.MutableColumnFamilyOptionsBuilder o, boolean dynamic) {
        List<LevelMetaData> lmd = md.levels();
        int n = lmd.size();
        long[] bytes = new long[n];
        List<List<SstFile>> files = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LevelMetaData l = lmd.get(i);
            bytes[i] = l.size();
            List<SstFile> fs = new ArrayList<>(l.files().size());
            for (SstFileMetaData f : l.files()) {
                String name = f.fileName();
                String rel = name.startsWith("/") ? name.substring(1) : name;
                fs.add(new SstFile(
                        rel,
                        PartitionListener.fileNumber(rel),
                        l.level(),
                        f.size(),
                        f.smallestSeqno(),
                        f.largestSeqno(),
                        f.smallestKey(),
                        f.largestKey(),
                        f.beingCompacted()));
            }
            files.add(fs);
        }
        long[] targets = targets(
                bytes,
                o.maxBytesForLevelBase(),
                o.maxBytesForLevelMultiplier(),
                o.maxBytesForLevelMultiplierAdditional(),
                dynamic);
        List<LevelInfo> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new LevelInfo(i, files.get(i).size(), bytes[i], targets[i], files.get(i)));
        }
        return out;
    }

    /**
     * Level targets, following RocksDB's {@code VersionStorageInfo::CalculateBaseBytes} (9.10).
     *
     * <p>Static: L1 = base, L(i) = L(i−1) × multiplier × additional[i−1].
     *
     * <p>Dynamic ({@code level_compaction_dynamic_level_bytes}): take the largest non-L0 level's size, divide it by the
     * multiplier once per level up to the first non-empty level; if that is at most base/multiplier the base level is
     * the first non-empty level with size base/multiplier + 1; otherwise move the base level up while the size exceeds
     * base. Targets then grow by the multiplier from the base level down, never below base; levels above the base level
     * have no target (0). With no data below L0 there are no targets. Not modelled: RocksDB's extra adjustment when L0
     * is larger than the base level (it then raises targets to drain L0 faster), so under a large L0 backlog these
     * targets are lower than RocksDB's and scores higher.
     */
    static long[] targets(long[] bytes, long base, double mult, int[] additional, boolean dynamic) {
        int n = bytes.length;
        long[] t = new long[n];
        if (n <= 1) {
            return t;
        }
        if (!dynamic) {
            double cur = base;
            t[1] = base;
            for (int i = 2; i < n; i++) {
                int add = additional != null && additional.length > i - 1 ? additional[i - 1] : 1;
                cur = cur * mult * add;
                t[i] = (long) Math.min(cur, Long.MAX_VALUE / 2.0);
            }
            return t;
        }
        long maxLevelSize = 0;
        int firstNonEmpty = -1;
        for (int i = 1; i < n; i++) {
            if (bytes[i] > 0 && firstNonEmpty < 0) {
                firstNonEmpty = i;
            }
            maxLevelSize = Math.max(maxLevelSize, bytes[i]);
        }
        if (maxLevelSize == 0) {
            return t;
        }
        double baseMin = base / mult;
        double cur = maxLevelSize;
        for (int i = n - 2; i >= firstNonEmpty; i--) {
            cur /= mult;
        }
        int baseLevel;
        double baseLevelSize;
        if (cur <= baseMin) {
            baseLevel = firstNonEmpty;
            baseLevelSize = baseMin + 1;
        } else {
            baseLevel = firstNonEmpty;
            while (baseLevel > 1 && cur > base) {
                baseLevel--;
                cur /= mult;
            }
            baseLevelSize = cur > base ? base : Math.max(1, cur);
        }
        double size = baseLevelSize;
        for (int i = baseLevel; i < n; i++) {
            if (i > baseLevel) {
                size *= mult;
            }
            t[i] = (long) Math.min(Math.max(size, base), Long.MAX_VALUE / 2.0);
        }
        return t;
    }
}
