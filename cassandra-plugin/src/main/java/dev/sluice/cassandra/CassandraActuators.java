package dev.sluice.cassandra;

import dev.sluice.core.control.ActionFailure;
import dev.sluice.core.control.Actuators;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoControl;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Actions mapped onto Cassandra 5.0's knobs (README "Cassandra", docs/architecture.md "Engine-neutral split"):
 *
 * <ul>
 *   <li>{@code admission_rate} → native-transport requests/s ({@code StorageService.setNativeTransportMaxRequestsPerSecond}
 *       with rate limiting enabled). Cassandra's limit is node-wide: it is set to the sum of the tables' finite rates;
 *       when no table has a finite rate (or the last table with one leaves), the node's own setting from before is
 *       put back (rate limiting off, unless the operator had it on).
 *   <li>{@code max_background_jobs} (RocksDB's flush + compaction threads) → concurrent compactors, with the quarter
 *       RocksDB gives to flushes taken off ({@code jobs − max(1, jobs/4)}, at least 1); node-wide: the largest asked;
 *       the node's own count again once no table asks.
 *   <li>{@code compaction_concurrency} → at most that many compactions of the table at once, by withholding
 *       background tasks in {@link SluiceCompactionStrategy#getNextBackgroundTask}.
 *   <li>{@code auto_compactions} off → the table's background tasks are withheld (flushes go on); on → released, and
 *       a background compaction is submitted at once.
 *   <li>{@code compact_files} → a user-defined compaction of those sstables (Cassandra's strategy picks the output;
 *       the output level is not Cassandra's to choose).
 *   <li>I/O class limits (ConfigureIo) on the compaction classes → Cassandra's compaction throughput (one node-wide
 *       rate limiter, bytes/s).
 *   <li>{@code write_buffer_size}, {@code max_write_buffer_number}, level targets, L0 triggers, pending-compaction
 *       limits: refused ({@link UnsupportedOperationException} naming the knob; recorded as a FAILED event): Cassandra
 *       reads memtable space and its compaction thresholds at start or from the table's schema.
 * </ul>
 *
 * <p>Thread-safety: called from the control thread only; state read by compaction threads is in {@link TableState}'s
 * volatile fields.
 */
final class CassandraActuators implements Actuators {
    private static final Logger log = LoggerFactory.getLogger(CassandraActuators.class);

    private final Function<String, TableState> tables;
    private final java.util.function.Supplier<Set<String>> names;
    private final Map<String, Double> admission = new ConcurrentHashMap<>();
    private final Map<String, Integer> jobs = new ConcurrentHashMap<>();
    private volatile double nodeAdmissionRate = Double.POSITIVE_INFINITY;
    private final IoControl io = new CompactionThroughput();

    CassandraActuators(Function<String, TableState> tables, java.util.function.Supplier<Set<String>> names) {
        this.tables = tables;
        this.names = names;
    }

    private TableState table(String partition) {
        TableState t = tables.apply(partition);
        if (t == null) {
            throw new ActionFailure("no table '" + partition + "' uses SluiceCompactionStrategy");
        }
        return t;
    }

    @Override
    public Set<String> partitions() {
        return new TreeSet<>(names.get());
    }

    /** The node's native-transport limit as last set by admission; infinite when rate limiting is off. */
    double nodeAdmissionRate() {
        return nodeAdmissionRate;
    }

    double admissionRate(String partition) {
        return admission.getOrDefault(partition, Double.POSITIVE_INFINITY);
    }

    @Override
    public void setAdmissionRate(String partition, double requestsPerSecond) {
        table(partition);
        if (!(requestsPerSecond > 0)) {
            throw new ActionFailure("admission_rate must be positive, got " + requestsPerSecond);
        }
        admission.put(partition, requestsPerSecond);
        applyAdmission();
    }

    /**
     * A table left the control plane (dropped, or its strategy changed): its rate leaves the node-wide sum, and its
     * compactor count the node-wide maximum, at once. Until 2026-11-28 they stayed until another table's rate was set,
     * so a node whose last plugin table left kept limiting every request to the last sum (Cassandra probe).
     */
    void tableLeft(String partition) {
        if (admission.remove(partition) != null) {
            applyAdmission();
        }
        if (jobs.remove(partition) != null) {
            applyJobs();
        }
    }

    /** The node's native-transport settings before admission first changed them: put back when no rate is left. */
    private Boolean limitingBefore;

    private int maxRequestsBefore;
    private int compactorsBefore = -1;

    private void applyAdmission() {
        admission.keySet().retainAll(names.get());
        if (limitingBefore == null) {
            limitingBefore = StorageService.instance.getNativeTransportRateLimitingEnabled();
            maxRequestsBefore = StorageService.instance.getNativeTransportMaxRequestsPerSecond();
        }
        double sum = 0;
        boolean any = false;
        for (double r : admission.values()) {
            if (Double.isFinite(r)) {
                sum += r;
                any = true;
            }
        }
        if (!any) {
            // the operator's own setting (usually off), not whatever admission last set
            StorageService.instance.setNativeTransportMaxRequestsPerSecond(maxRequestsBefore);
            StorageService.instance.setNativeTransportRateLimitingEnabled(limitingBefore);
            nodeAdmissionRate = Double.POSITIVE_INFINITY;
            return;
        }
        int perSecond = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(sum)));
        // each call logs an INFO line in Cassandra, even when nothing changes (a probe, 2026-11-29: three lines per
        // change, one every tick under load)
        if (perSecond != nodeAdmissionRate) {
            StorageService.instance.setNativeTransportMaxRequestsPerSecond(perSecond);
        }
        if (!StorageService.instance.getNativeTransportRateLimitingEnabled()) {
            StorageService.instance.setNativeTransportRateLimitingEnabled(true);
        }
        nodeAdmissionRate = perSecond;
    }

    @Override
    public void setMaxBackgroundJobs(String partition, int count) {
        table(partition);
        if (count < 1) {
            throw new ActionFailure("max_background_jobs must be at least 1, got " + count);
        }
        jobs.put(partition, count);
        applyJobs();
    }

    private void applyJobs() {
        jobs.keySet().retainAll(names.get());
        if (compactorsBefore < 0) {
            compactorsBefore = StorageService.instance.getConcurrentCompactors();
        }
        int compactors;
        if (jobs.isEmpty()) {
            compactors = compactorsBefore; // no table asks any more: the node's own setting
        } else {
            int most = jobs.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
            compactors = Math.max(1, most - Math.max(1, most / 4));
        }
        if (StorageService.instance.getConcurrentCompactors() != compactors) {
            StorageService.instance.setConcurrentCompactors(compactors);
        }
    }

    @Override
    public void setWriteBufferSize(String partition, long bytes) {
        throw new UnsupportedOperationException("write_buffer_size: Cassandra sizes memtables from memtable_heap_space"
                + " / memtable_offheap_space, read at start; it cannot change at runtime");
    }

    @Override
    public void setMaxSubcompactions(String partition, int subcompactions) {
        throw new UnsupportedOperationException("max_subcompactions: Cassandra runs each compaction task on one"
                + " compactor thread; its parallelism is concurrent_compactors (max_background_jobs here)");
    }

    @Override
    public void setMaxWriteBufferNumber(String partition, int count) {
        throw new UnsupportedOperationException(
                "max_write_buffer_number: Cassandra has no such knob (memtables flush by memtable_cleanup_threshold)");
    }

    @Override
    public void setLevelTargets(
            String partition, long levelBaseBytes, double multiplier, List<Integer> multiplierAdditional) {
        throw new UnsupportedOperationException("level_targets: Cassandra's level sizes come from the table's"
                + " compaction options (sstable_size_in_mb, fanout_size, scaling_parameters), not from runtime knobs");
    }

    @Override
    public void setL0Triggers(String partition, int compactionTrigger, int slowdownTrigger, int stopTrigger) {
        throw new UnsupportedOperationException(
                "l0_triggers: Cassandra never slows or stops writes by sstable count; its thresholds are table options");
    }

    @Override
    public void setPendingCompactionLimits(String partition, long softBytes, long hardBytes) {
        throw new UnsupportedOperationException(
                "pending_compaction_limits: Cassandra has no pending-compaction-bytes write limit");
    }

    @Override
    public void setCompactionConcurrency(String partition, int maxConcurrent) {
        TableState t = table(partition);
        int before = t.maxConcurrent;
        t.maxConcurrent = maxConcurrent;
        if (maxConcurrent < 0 || (before >= 0 && maxConcurrent > before)) {
            CompactionManager.instance.submitBackground(t.cfs);
        }
    }

    @Override
    public void setAutoCompactions(String partition, boolean enabled) {
        TableState t = table(partition);
        boolean wasHeld = t.held;
        t.held = !enabled;
        if (enabled && wasHeld) {
            CompactionManager.instance.submitBackground(t.cfs);
        }
    }

    @Override
    public void compactFiles(String partition, List<String> fileNames, int outputLevel, String reason) {
        TableState t = table(partition);
        ColumnFamilyStore cfs = t.cfs;
        Set<String> wanted = new LinkedHashSet<>(fileNames);
        List<Descriptor> found = new ArrayList<>();
        for (SSTableReader s : cfs.getLiveSSTables()) {
            if (wanted.remove(CassandraSensors.fileName(s))) {
                found.add(s.descriptor);
            }
        }
        if (!wanted.isEmpty()) {
            throw new ActionFailure("compact_files: no live sstables " + wanted + " in " + partition);
        }
        log.info("sluice: user-defined compaction of {} sstables of {} ({})", found.size(), partition, reason);
        CompactionManager.instance.submitUserDefined(
                cfs, found, CompactionManager.getDefaultGcBefore(cfs, FBUtilities.nowInSeconds()));
    }

    @Override
    public Optional<IoControl> io() {
        return Optional.of(io);
    }

    /** ConfigureIo on Cassandra: the compaction classes share Cassandra's single compaction rate limiter. */
    private static final class CompactionThroughput implements IoControl {
        @Override
        public void setClassLimit(IoClass ioClass, double opsPerSecond, double bytesPerSecond) {
            if (!ioClass.isCompaction()) {
                throw new UnsupportedOperationException("io limit on " + ioClass + ": Cassandra can only throttle"
                        + " compaction I/O (compaction_throughput); the other classes have no limiter");
            }
            double rate = Double.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? bytesPerSecond : 0;
            CompactionManager.instance.setRateInBytes(rate); // 0 = unthrottled
        }
    }
}
