package dev.sluice.cassandra;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.CompactionInfo;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.db.compaction.LeveledCompactionStrategy;
import org.apache.cassandra.db.compaction.LeveledManifest;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.db.memtable.AbstractAllocatorMemtable;
import org.apache.cassandra.db.memtable.Memtable;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.metrics.ClientMetrics;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.TimeUUID;
import org.apache.cassandra.utils.memory.MemtablePool;

/**
 * Cassandra's state as the engine-neutral {@link LsmSnapshot}, one per table (README "Cassandra" lists the mapping):
 *
 * <ul>
 *   <li>memtable watermark: Cassandra's node-wide memtable pool ({@code memtable_heap_space} or {@code
 *       memtable_offheap_space}, whichever is fuller) — every table's snapshot carries the node's fill level, since
 *       writers of all tables block on that one pool. The control plane reads it every {@link #POOL_SAMPLE_MS} ms and
 *       the snapshot carries the mean over the tick ({@link #takePool}): the pool rises towards full and drops by a
 *       memtable at every flush, several times a second under a flood, so one instant at the tick said more about the
 *       flush cycle's phase than about the load (one 95 % instant at the end of admission's warm-up halved t_0 in a
 *       measured run, docs/benchmarks.md "Cassandra");
 *   <li>stall: {@link StallCondition#STOPPED} when writers blocked on the full pool during the tick (the pool's {@code
 *       BlockedOnAllocation} timer counted), else normal — Cassandra's only write stop;
 *   <li>levels: with LCS, its real levels and targets ({@code fanout^L × sstable_size}); with UCS and STCS, size tiers
 *       (tier t holds sstables of [4^t, 4^(t+1)) MiB; tier 0 everything below 4 MiB), target 0;
 *   <li>pending compaction bytes, computed from sstable sizes (Cassandra has no such metric): with tiers, the bytes of
 *       the sstables not being compacted in every tier that holds at least {@code min_threshold} of them; with LCS,
 *       each level's excess over its target, plus L0 when it holds {@code min_threshold} sstables; plus what running
 *       compactions of the table have not yet processed;
 *   <li>flushes: memtables being flushed; compactions: the table's running compactions;
 *   <li>operations: the table's read, write and range-read latency counts. Cassandra counts no client bytes, so the
 *       bytes written are estimated as writes × (flushed bytes / flushed writes), the flushed writes being the writes
 *       less the operations still in memtables: on-disk bytes per write, the unit the device throughput below is in.
 *       Bytes read stay unknown (0), so Eq. 3's read term is left out on Cassandra;
 *   <li>node I/O ({@link #nodeIo}, {@link IoStats.Source#STATISTICS}): flushed bytes of every table under {@link
 *       IoClass#FLUSH}; under {@link IoClass#COMPACTION_HIGH}, the on-disk bytes running compactions have read since the
 *       last tick, counted twice (read and written: Eq. 3's own assumption that compaction writes what it reads).
 *       Cassandra counts a compaction's written bytes only when it finishes, which would make a one-tick peak of a
 *       whole compaction; its progress is smooth. Commit-log writes are not counted (Cassandra has no byte counter for
 *       them), so the measured peak is lower than the device's and Eq. 3 errs on the conservative side;
 *   <li>admission queue: the native transport has no queue; it holds requests back by pausing client connections
 *       ({@code ClientMetrics}' {@code ConnectionPaused} count). While Sluice's rate limit is on, the pauses during the
 *       interval stand for the requests waiting at the gate (node-wide, like the limit itself), so the admission
 *       controller sees when its gate binds. Pauses for other backpressure (bytes or queue time in flight) count too.
 * </ul>
 *
 * <p>Thread-safety: called from the control thread only.
 */
final class CassandraSensors {
    static final long MIB = 1L << 20;

    /** How often the control thread reads the memtable pool between ticks. */
    static final long POOL_SAMPLE_MS = 50;

    private record Previous(long timeNanos, OpCounters ops, long pausedConnections) {}

    /**
     * The node's memtable pool over one tick.
     *
     * @param used bytes used (the mean of the tick's readings, or one reading)
     * @param budget the pool's limit in bytes
     * @param writersBlocked whether a writer waited for pool space during the tick
     */
    record Pool(long used, long budget, boolean writersBlocked) {}

    private final Map<String, Previous> previous = new HashMap<>();
    private long onHeapSum, offHeapSum;
    private int poolReadings;
    private long blockedBefore = -1;
    private final Map<TableId, Long> flushedBefore = new HashMap<>();
    private final Map<TimeUUID, long[]> compactionsBefore = new HashMap<>();
    private long flushBytes, compactionBytes;

    /** One reading of the pool (control thread, every {@link #POOL_SAMPLE_MS} ms). */
    void readPool() {
        MemtablePool pool = AbstractAllocatorMemtable.MEMORY_POOL;
        onHeapSum += pool.onHeap.used();
        offHeapSum += pool.offHeap.used();
        poolReadings++;
    }

    /** The pool over the tick that ends now (the mean of the readings since the last call); starts the next tick. */
    Pool takePool() {
        MemtablePool pool = AbstractAllocatorMemtable.MEMORY_POOL;
        long onHeap = poolReadings == 0 ? pool.onHeap.used() : onHeapSum / poolReadings;
        long offHeap = poolReadings == 0 ? pool.offHeap.used() : offHeapSum / poolReadings;
        onHeapSum = offHeapSum = 0;
        poolReadings = 0;
        long blocked = pool.blockedOnAllocating.getCount();
        boolean writersBlocked = blockedBefore >= 0 && blocked > blockedBefore;
        blockedBefore = blocked;
        return fuller(pool, onHeap, offHeap, writersBlocked);
    }

    /** The pool at this instant (the JMX view's reading). */
    static Pool poolNow() {
        MemtablePool pool = AbstractAllocatorMemtable.MEMORY_POOL;
        return fuller(pool, pool.onHeap.used(), pool.offHeap.used(), false);
    }

    private static Pool fuller(MemtablePool pool, long onHeap, long offHeap, boolean blocked) {
        long onLimit = Math.max(1, pool.onHeap.limit), offLimit = Math.max(1, pool.offHeap.limit);
        return (double) offHeap / offLimit > (double) onHeap / onLimit
                ? new Pool(offHeap, offLimit, blocked)
                : new Pool(onHeap, onLimit, blocked);
    }

    /**
     * The node's I/O so far from Cassandra's own counters (see the class comment), cumulative since this sensor
     * started. Dropped tables and finished compactions keep what they added.
     */
    IoStats nodeIo() {
        Map<TableId, Long> flushed = new HashMap<>();
        for (ColumnFamilyStore c : ColumnFamilyStore.all()) {
            long now = c.metric.bytesFlushed.getCount();
            flushed.put(c.metadata.id, now);
            flushBytes += Math.max(0, now - flushedBefore.getOrDefault(c.metadata.id, now));
        }
        flushedBefore.clear();
        flushedBefore.putAll(flushed);
        Map<TimeUUID, long[]> running = new HashMap<>();
        for (CompactionInfo.Holder h : CompactionManager.instance.active.getCompactions()) {
            CompactionInfo ci = h.getCompactionInfo();
            if (ci.getUnit() != CompactionInfo.Unit.BYTES
                    || ci.getTaskType() == OperationType.FLUSH
                    || ci.getTaskId() == null) {
                continue;
            }
            // progress is in uncompressed bytes; scale it to the bytes on disk
            double onDisk = ci.getTotal() > 0 && ci.getTotalCompressed() > 0
                    ? (double) ci.getTotalCompressed() / ci.getTotal()
                    : 1;
            long done = Math.round(ci.getCompleted() * onDisk), total = Math.round(ci.getTotal() * onDisk);
            running.put(ci.getTaskId(), new long[] {done, total});
            long[] before = compactionsBefore.get(ci.getTaskId());
            compactionBytes += Math.max(0, done - (before == null ? 0 : before[0]));
        }
        for (Map.Entry<TimeUUID, long[]> e : compactionsBefore.entrySet()) {
            if (!running.containsKey(e.getKey())) { // finished since the last tick: the rest of its input was read
                compactionBytes += Math.max(0, e.getValue()[1] - e.getValue()[0]);
            }
        }
        compactionsBefore.clear();
        compactionsBefore.putAll(running);
        Map<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        m.put(IoClass.FLUSH, new IoClassStats(-1, flushBytes, -1, -1));
        m.put(IoClass.COMPACTION_HIGH, new IoClassStats(-1, 2 * compactionBytes, -1, -1));
        return new IoStats(IoStats.Source.STATISTICS, m);
    }

    LsmSnapshot sample(TableState t, long nowNanos, double admissionRate, Pool pool) {
        ColumnFamilyStore cfs = t.cfs;
        View view = cfs.getTracker().getView();
        Set<SSTableReader> compacting = cfs.getTracker().getCompacting();
        long budget = pool.budget();
        long used = pool.used();
        long active = view.getCurrentMemtable() == null
                ? 0
                : view.getCurrentMemtable().getLiveDataSize();
        int flushing = view.flushingMemtables.size();
        long inMemtables = 0;
        for (Memtable m : view.getAllMemtables()) {
            inMemtables += m.operationCount();
        }

        LeveledCompactionStrategy lcs = leveled(t);
        boolean leveled = lcs != null;
        int minThreshold = Math.max(2, cfs.getMinimumCompactionThreshold());
        TreeMap<Integer, List<SstFile>> byLevel = new TreeMap<>();
        for (SSTableReader s : cfs.getLiveSSTables()) {
            int level = leveled ? s.getSSTableLevel() : tier(s.onDiskLength());
            byLevel.computeIfAbsent(level, k -> new ArrayList<>())
                    .add(new SstFile(
                            fileName(s),
                            s.descriptor.id.hashCode() & 0xffffffffL,
                            level,
                            s.onDiskLength(),
                            0,
                            0,
                            new byte[0],
                            new byte[0],
                            compacting.contains(s)));
        }
        List<LevelInfo> levels = new ArrayList<>();
        long pending = 0;
        int deepest = byLevel.isEmpty() ? 0 : byLevel.lastKey();
        long maxSstable = leveled ? lcs.getMaxSSTableBytes() : 0;
        int fanout = leveled ? lcs.getLevelFanoutSize() : 0;
        for (int l = 0; l <= deepest; l++) {
            List<SstFile> files = byLevel.getOrDefault(l, List.of());
            long bytes = 0, free = 0;
            int freeCount = 0;
            for (SstFile f : files) {
                bytes += f.sizeBytes();
                if (!f.beingCompacted()) {
                    free += f.sizeBytes();
                    freeCount++;
                }
            }
            long target = leveled && l > 0 ? LeveledManifest.maxBytesForLevel(l, fanout, maxSstable) : 0;
            if (leveled && l > 0) {
                pending += Math.max(0, bytes - target);
            } else if (freeCount >= minThreshold) {
                pending += free;
            }
            levels.add(new LevelInfo(l, files.size(), bytes, target, files));
        }
        int running = 0;
        for (CompactionInfo.Holder h : CompactionManager.instance.active.getCompactions()) {
            CompactionInfo ci = h.getCompactionInfo();
            if (ci.getTableMetadata() != null && ci.getTableMetadata().id.equals(cfs.metadata.id)) {
                running++;
                pending += Math.max(0, ci.getTotal() - ci.getCompleted());
            }
        }

        long writes = cfs.metric.writeLatency.latency.getCount();
        long flushedBytes = cfs.metric.bytesFlushed.getCount();
        long flushedWrites = writes - inMemtables;
        long bytesWritten = flushedBytes > 0 && flushedWrites > 0
                ? Math.round(writes * ((double) flushedBytes / flushedWrites))
                : 0;
        OpCounters ops = new OpCounters(
                cfs.metric.readLatency.latency.getCount(),
                writes,
                0,
                cfs.metric.rangeLatency.latency.getCount(),
                0,
                bytesWritten,
                0,
                0);
        long paused = pausedConnections();
        Previous prev = previous.put(t.name, new Previous(nowNanos, ops, paused));
        long interval = prev == null ? 0 : nowNanos - prev.timeNanos();
        OpCounters delta = prev == null ? OpCounters.ZERO : ops.minus(prev.ops());
        // the native transport holds requests back by pausing connections; with the rate limit on, a pause during the
        // interval means the gate was binding (admission's "requests held back")
        int heldBack = prev == null || Double.isInfinite(admissionRate)
                ? 0
                : (int) Math.min(Integer.MAX_VALUE, Math.max(0, paused - prev.pausedConnections()));

        int maxThreshold = Math.max(minThreshold, cfs.getMaximumCompactionThreshold());
        return new LsmSnapshot(
                t.name,
                nowNanos,
                interval,
                used,
                Math.min(active, used),
                budget,
                flushing,
                budget,
                1,
                maxThreshold,
                maxThreshold,
                levels,
                pending,
                0,
                0,
                pool.writersBlocked() ? StallCondition.STOPPED : StallCondition.NORMAL,
                0,
                flushing,
                running,
                StorageService.instance.getConcurrentCompactors(),
                t.held || cfs.isAutoCompactionDisabled(),
                flushedBytes,
                0,
                cfs.metric.compactionBytesWritten.getCount(),
                0,
                ops,
                delta,
                IoStats.EMPTY,
                IoStats.EMPTY,
                admissionRate,
                heldBack,
                -1,
                0,
                PartitionHealth.OK,
                -1,
                -1);
    }

    /** Connection pauses so far (cumulative); 0 before the native transport has started and registered its metrics. */
    private static long pausedConnections() {
        try {
            return ClientMetrics.instance.getNumberOfPausedConnections();
        } catch (NullPointerException notStarted) {
            return 0; // ClientMetrics.init() creates the meter when the native transport starts
        }
    }

    void forget(String table) {
        previous.remove(table);
    }

    /** Size tier of an sstable for UCS and STCS: 0 below 4 MiB, then one tier per factor of 4. */
    static int tier(long bytes) {
        long mib = Math.max(1, bytes / MIB);
        int t = 0;
        for (long edge = 4; mib >= edge && t < 30; edge *= 4) {
            t++;
        }
        return t;
    }

    static String fileName(SSTableReader s) {
        String path = s.getFilename();
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    private static LeveledCompactionStrategy leveled(TableState t) {
        for (SluiceCompactionStrategy s : t.strategies) {
            if (s.delegate() instanceof LeveledCompactionStrategy l) {
                return l;
            }
        }
        return null;
    }
}
