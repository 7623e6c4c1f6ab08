package dev.sluice.core;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.OpCounters;
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
import org.rocksdb.HistogramType;
import org.rocksdb.LevelMetaData;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileMetaData;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * Builds a partition's {@link LsmSnapshot} from RocksDB properties, column-family metadata, current mutable options,
 * Statistics, the event listener, the partition's own op counters, the admission gate and, when present, the priority
 * Env's per-class I/O counters. Also pushes the full file → level map to the Env.
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

    synchronized LsmSnapshot sample(long nowNanos, int maxBackgroundJobs) {
        RocksDB db = partition.db();
        try {
            long memAll = db.getLongProperty("rocksdb.cur-size-all-mem-tables");
            long memActive = db.getLongProperty("rocksdb.cur-size-active-mem-table");
            int immutables = (int) db.getLongProperty("rocksdb.num-immutable-mem-table");
            long pending = db.getLongProperty("rocksdb.estimate-pending-compaction-bytes");
            int runningFlushes = (int) db.getLongProperty("rocksdb.num-running-flushes");
            int runningCompactions = (int) db.getLongProperty("rocksdb.num-running-compactions");
            boolean stopped = db.getLongProperty("rocksdb.is-write-stopped") != 0;
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

            StallCondition stall =
                    stopped ? StallCondition.STOPPED : partition.listener().stall();
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
                    gate.queued());
            previous = s;
            return s;
        } catch (RocksDBException e) {
            throw new SluiceException(
                    "partition '" + partition.name() + "': sampling failed: " + RocksPartition.describe(e), e);
        }
    }

    /**
     * I/O estimated from Statistics when there is no priority Env: byte counters for WAL, flush and compaction (all
     * compaction under COMPACTION_HIGH), file-read counts per activity from the FILE_READ_* histograms, unknown read bytes
     * and wait times as -1.
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
     * Level targets. Static: L1 = base, Ln = L(n-1) × multiplier × additional[n-1]. Dynamic
     * (level_compaction_dynamic_level_bytes): the last level's target is its size (at least base), each level above is
     * its lower neighbour's target / multiplier, and levels whose target would fall below base/multiplier are unused (0)
     * — an estimate of RocksDB's internal computation, good enough for scores and controllers.
     */
    static long[] targets(long[] bytes, long base, double mult, int[] additional, boolean dynamic) {
        int n = bytes.length;
        long[] t = new long[n];
        if (n <= 1) {
            return t;
        }
        if (!dynamic) {
            double cur = base;
            for (int i = 1; i < n; i++) {
                if (i > 1) {
                    cur *= mult * (additional != null && additional.length > i - 2 ? additional[i - 2] : 1);
                }
                t[i] = (long) Math.min(cur, Long.MAX_VALUE / 2.0);
            }
            return t;
        }
        double cur = Math.max(bytes[n - 1], base);
        for (int i = n - 1; i >= 1; i--) {
            if (cur < base / Math.max(mult, 1.0) && i < n - 1) {
                break;
            }
            t[i] = (long) Math.max(cur, i == n - 1 ? cur : base);
            cur /= mult;
        }
        return t;
    }
}
