package dev.sluice.cassandra;

import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
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
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.db.memtable.AbstractAllocatorMemtable;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.metrics.ClientMetrics;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.memory.MemtablePool;

/**
 * Cassandra's state as the engine-neutral {@link LsmSnapshot}, one per table (README "Cassandra" lists the mapping):
 *
 * <ul>
 *   <li>memtable watermark: Cassandra's node-wide memtable pool ({@code memtable_heap_space} or {@code
 *       memtable_offheap_space}, whichever is fuller) — every table's snapshot carries the node's fill level, since
 *       writers of all tables block on that one pool;
 *   <li>levels: with LCS, its real levels and targets ({@code fanout^L × sstable_size}); with UCS and STCS, size tiers
 *       (tier t holds sstables of [4^t, 4^(t+1)) MiB; tier 0 everything below 4 MiB), target 0;
 *   <li>pending compaction bytes, computed from sstable sizes (Cassandra has no such metric): with tiers, the bytes of
 *       the sstables not being compacted in every tier that holds at least {@code min_threshold} of them; with LCS,
 *       each level's excess over its target, plus L0 when it holds {@code min_threshold} sstables; plus what running
 *       compactions of the table have not yet processed;
 *   <li>flushes: memtables being flushed; compactions: the table's running compactions;
 *   <li>operations: the table's read, write and range-read latency counts (bytes are not known: 0);
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

    private record Previous(long timeNanos, OpCounters ops, long pausedConnections) {}

    private final Map<String, Previous> previous = new HashMap<>();

    LsmSnapshot sample(TableState t, long nowNanos, double admissionRate) {
        ColumnFamilyStore cfs = t.cfs;
        View view = cfs.getTracker().getView();
        Set<SSTableReader> compacting = cfs.getTracker().getCompacting();
        MemtablePool pool = AbstractAllocatorMemtable.MEMORY_POOL;
        MemtablePool.SubPool sub = pool.offHeap.usedRatio() > pool.onHeap.usedRatio() ? pool.offHeap : pool.onHeap;
        long budget = Math.max(1, sub.limit);
        long used = sub.used();
        long active = view.getCurrentMemtable() == null
                ? 0
                : view.getCurrentMemtable().getLiveDataSize();
        int flushing = view.flushingMemtables.size();

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

        OpCounters ops = new OpCounters(
                cfs.metric.readLatency.latency.getCount(),
                cfs.metric.writeLatency.latency.getCount(),
                0,
                cfs.metric.rangeLatency.latency.getCount(),
                0,
                0,
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
                sub.usedRatio() >= 0.99f ? StallCondition.STOPPED : StallCondition.NORMAL,
                0,
                flushing,
                running,
                StorageService.instance.getConcurrentCompactors(),
                t.held || cfs.isAutoCompactionDisabled(),
                cfs.metric.bytesFlushed.getCount(),
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
