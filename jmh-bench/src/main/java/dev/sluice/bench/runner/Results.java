package dev.sluice.bench.runner;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.bench.metrics.CpuMeter;
import dev.sluice.bench.metrics.LatencyStats;
import java.util.List;
import java.util.Map;

/**
 * The model of {@code results.json} (documented field by field in docs/results-schema.md; JSON Schema in {@code
 * results.schema.json} on the classpath). Records serialize with Jackson as they are. Latencies are microseconds,
 * throughputs operations per second, sizes bytes. Values that do not apply are {@code null}, never NaN or Infinity.
 */
public final class Results {
    private Results() {}

    public static final int SCHEMA_VERSION = 2;

    public static ObjectMapper mapper() {
        return new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .setSerializationInclusion(JsonInclude.Include.ALWAYS);
    }

    /** The whole run: one scenario, every stack. */
    public record Run(
            int schemaVersion,
            String tool,
            ScenarioInfo scenario,
            String command,
            String startedAt,
            Machine machine,
            String baseline,
            List<Stack> stacks,
            List<String> charts,
            List<FailedStack> failedStacks) {}

    /**
     * A stack of the scenario that has no entry in {@code stacks}: it failed ({@code error} says why), or it did not run
     * because an earlier one failed. Null (not an empty list) in a run where every stack finished.
     */
    public record FailedStack(String name, String error) {}

    public record ScenarioInfo(
            String name,
            String description,
            String source,
            int durationSeconds,
            long seed,
            long preloadKeys,
            int keyBytes,
            int valueBytes,
            Map<String, String> device,
            String text) {}

    public record Machine(int cores, long memoryBytes, String os, String jvm, String cpu) {}

    /**
     * One stack's run.
     *
     * @param tenants multi-tenant scenarios: one entry per tenant (partition) and phase; null otherwise
     * @param tenantWindowP99Us multi-tenant scenarios: each tenant's p99 latency per 1-s window (index = second; null
     *     where no request of the tenant completed); null otherwise
     * @param deferralStage stacks running the {@code deferral} controller in a multi-tenant scenario: each partition's
     *     compaction-deferral stage (0, 1, 2) at the end of each 1-s window (index = second); null otherwise
     */
    public record Stack(
            String name,
            String description,
            boolean baseline,
            String profile,
            List<String> controls,
            Map<String, String> options,
            Map<String, String> sysprops,
            Environment environment,
            Preload preload,
            List<Phase> phases,
            Metrics metrics,
            Map<String, Double> ratioToBaseline,
            Map<String, Long> controlEvents,
            double wallSeconds,
            List<Window> windows,
            List<Tenant> tenants,
            Map<String, List<Long>> tenantWindowP99Us,
            Map<String, List<Integer>> deferralStage) {
        /** A single-tenant stack. */
        public Stack(
                String name,
                String description,
                boolean baseline,
                String profile,
                List<String> controls,
                Map<String, String> options,
                Map<String, String> sysprops,
                Environment environment,
                Preload preload,
                List<Phase> phases,
                Metrics metrics,
                Map<String, Double> ratioToBaseline,
                Map<String, Long> controlEvents,
                double wallSeconds,
                List<Window> windows) {
            this(
                    name,
                    description,
                    baseline,
                    profile,
                    controls,
                    options,
                    sysprops,
                    environment,
                    preload,
                    phases,
                    metrics,
                    ratioToBaseline,
                    controlEvents,
                    wallSeconds,
                    windows,
                    null,
                    null,
                    null);
        }

        public Stack withBaseline(boolean isBaseline, Map<String, Double> ratios) {
            return new Stack(
                    name,
                    description,
                    isBaseline,
                    profile,
                    controls,
                    options,
                    sysprops,
                    environment,
                    preload,
                    phases,
                    metrics,
                    ratios,
                    controlEvents,
                    wallSeconds,
                    windows,
                    tenants,
                    tenantWindowP99Us,
                    deferralStage);
        }
    }

    /**
     * One tenant (partition) in one phase of a multi-tenant scenario. Requests and units: the scenario's keys and values
     * fit one unit each (key + value at most 1 KiB), so requests/s and units/s are the same numbers.
     *
     * @param offeredPerSec requests the tenant's open loop generated, per second of the phase
     * @param servedPerSec requests that completed successfully, per second of the phase (those still in flight at the
     *     phase's end count in the next phase)
     * @param servedRcuPerSec read units the partition's quota meter charged, per second (metered with or without a quota)
     * @param servedWcuPerSec write units the partition's quota meter charged, per second
     * @param latency of the requests that completed, from their intended start (so admission and quota waits count)
     * @param throttled requests that waited for the tenant's quota (0 without a quota)
     * @param refused requests refused (QuotaExceededException or OverloadedException)
     * @param normallyServedFraction with a tenant SLO ({@code [tenants] slo.ms}): (requests completed within the SLO −
     *     throttled requests) / requests offered, at least 0 — a lower bound, since a throttled request is assumed to be
     *     among those within the SLO; null without an SLO
     */
    public record Tenant(
            String name,
            String phase,
            double offeredPerSec,
            double servedPerSec,
            double servedRcuPerSec,
            double servedWcuPerSec,
            LatencyStats latency,
            long throttled,
            long refused,
            long errors,
            Double normallyServedFraction,
            Double sortedRunsMean,
            int deferredSeconds,
            Double sortedRunsDeferredMean) {}

    /**
     * @param priorityEnv whether the node ran on Sluice's priority Env
     * @param deviceEmulated whether the scenario's device model was in effect
     * @param rssMode {@code child-jvm}: peak RSS is the stack's own process high-water mark; {@code in-process}: the
     *     highest VmRSS sampled while the stack ran, in a JVM shared with other stacks
     * @param note why something asked for is not in effect (e.g. the priority Env is unavailable), or empty
     */
    public record Environment(
            boolean priorityEnv, boolean deviceEmulated, Map<String, String> envOptions, String rssMode, String note) {}

    public record Preload(long keys, long bytes, double seconds, double settleSeconds, boolean settled) {}

    /**
     * @param dispatch open loop: {@code sync} (worker threads behind a client queue) or {@code async} (every arrival
     *     submitted through the async API at once); null for closed loop
     * @param threads client or worker threads; null with async dispatch (no client threads)
     * @param offeredMeanRate open loop: mean offered requests/s over the phase; null for closed loop
     * @param generated open loop: arrivals; unstartedAtEnd: still queued when the phase ended (never run, in no
     *     latency; always 0 with async dispatch); dropped: arrivals refused because the backlog was at {@code
     *     max.backlog} (async: {@code max.inflight} requests were in flight); maxBacklog: largest queue (async: most
     *     requests in flight)
     * @param latency this phase's latency per operation kind plus {@code all} (measured or not), as {@link
     *     Metrics#latency}: a sweep over phases (e.g. client threads, Calcspar Fig. 18) reads one row per phase
     */
    public record Phase(
            String name,
            String mode,
            String dispatch,
            int startSecond,
            int durationSeconds,
            boolean measured,
            Integer threads,
            String mix,
            String distribution,
            String shape,
            Double offeredMeanRate,
            Long generated,
            Long unstartedAtEnd,
            Long dropped,
            Long maxBacklog,
            Map<String, LatencyStats> latency) {}

    /**
     * Summary over the measured windows.
     *
     * @param tailThroughputP99 CruiseDB Eq. 1 with P = 99 over 1-s windows
     * @param zeroThroughputWindows measured 1-s windows in which no request completed (stall seconds, first kind)
     * @param rocksdbStallSeconds RocksDB's STALL_MICROS accumulated during the measured windows (second kind)
     * @param peakAdmissionQueued most requests waiting in admission gates in any measured window; null when no window
     *     knew (no gate limited the partition)
     * @param latency per operation kind plus {@code all}, from HdrHistogram
     * @param cpuSeconds CPU time the stack's process used during the measured windows (engine, controllers and the load
     *     clients together; user + system); null when unknown or not measured (tenant and Cassandra runs)
     * @param inputBytes user bytes (keys + values) the store accepted during the measured windows; null when unknown
     */
    public record Metrics(
            int measuredSeconds,
            long operations,
            double meanThroughput,
            double tailThroughputP99,
            double tailThroughputP95,
            double minWindowThroughput,
            double maxWindowThroughput,
            Long maxWindowP99Us,
            Long meanWindowP99Us,
            long rejected,
            long errors,
            Integer peakAdmissionQueued,
            int zeroThroughputWindows,
            double rocksdbStallSeconds,
            Double writeAmplification,
            Double readAmplification,
            long peakRssBytes,
            Map<String, LatencyStats> latency,
            Long longestStallMs,
            Double ioAmplification,
            Chains compactionChains,
            LatencyStats writeLatency,
            Device device,
            Double cpuSeconds,
            Long inputBytes) {}

    /**
     * Width of the memory→L1 compactions (every compaction that read L0 and wrote a deeper level) started during the
     * measured phases, from RocksDB's event log: input files and input bytes per compaction (vLSM §3, Fig. 2).
     *
     * @param filesHistogram input files → compactions
     * @param bytesHistogramMiB upper bound in MiB (powers of two: input ≤ that many MiB) → compactions
     */
    public record Chains(
            long compactions,
            double meanFiles,
            long p50Files,
            long p99Files,
            long maxFiles,
            long meanBytes,
            long p50Bytes,
            long p99Bytes,
            long maxBytes,
            Map<String, Long> filesHistogram,
            Map<String, Long> bytesHistogramMiB) {}

    /**
     * The cloud-disk contract and the Calcspar cache over the measured windows (Calcspar §2.3, §4.3).
     *
     * @param overContractSeconds measured 1-s windows in which the emulated device served at least one I/O on the
     *     overdraft path (punitive latency); null without the priority Env
     * @param overdraftIos I/Os served on the overdraft path in the measured windows; null without the priority Env
     * @param cacheHitRatio hits / lookups of the Calcspar cache ({@code controls = calcspar-cache}); null without it
     *     (RocksDB's block cache is not counted: it caches blocks, not lookups)
     * @param cacheHitRatioProactive the same, over lookups made while the cache was proactive; null if none
     * @param cacheHitRatioPassive the same, over lookups made while the cache was passive; null if none
     * @param proactiveLookups lookups while proactive; null without the cache
     * @param passiveLookups lookups while passive; null without the cache
     * @param prefetchIos PREFETCH-class I/Os the priority Env counted (prefetch reads); null without the Env
     */
    public record Device(
            Integer overContractSeconds,
            Long overdraftIos,
            Double cacheHitRatio,
            Double cacheHitRatioProactive,
            Double cacheHitRatioPassive,
            Long proactiveLookups,
            Long passiveLookups,
            Long prefetchIos) {}

    /**
     * One 1-s window. Gauges are from the last control-plane snapshot at or before the window's end.
     *
     * @param backlog open loop: requests waiting in the client at the window's end (async dispatch: requests in flight);
     *     null for closed loop
     * @param admissionRate the gate's admission rate, null when no gate limits the partition
     * @param admissionQueued requests waiting in the admission gate at the snapshot, null when no gate limits the
     *     partition
     * @param tuning the knobs ADOC tunes and the overflows the snapshot shows; null without a snapshot
     * @param writeP99Us p99 latency of the window's completed writes (insert, update, rmw); null when none completed
     * @param readP99Us p99 latency of the window's completed reads (read, scan); null when none completed
     * @param cpu this process's CPU and the machine's busy and steal shares over the window ({@link CpuMeter}); null
     *     where not recorded (Cassandra runs, results written before 2026-11-27)
     */
    public record Window(
            int second,
            String phase,
            boolean measured,
            long ops,
            Map<String, Long> opsByKind,
            long rejected,
            long errors,
            Long p50Us,
            Long p99Us,
            Long maxUs,
            Long backlog,
            Long backlogMax,
            Double memtableWatermark,
            Double unmergedWatermark,
            Integer l0Files,
            Integer immutableMemtables,
            Long pendingCompactionBytes,
            List<Long> levelBytes,
            List<Long> levelTargetBytes,
            String stall,
            Long stallMicros,
            Integer runningFlushes,
            Integer runningCompactions,
            Double admissionRate,
            Integer admissionQueued,
            Map<String, Io> io,
            Long rssBytes,
            Tuning tuning,
            Long writeP99Us,
            Long readP99Us,
            CpuMeter.Shares cpu) {
        /**
         * The few fields a child's progress line carries (second, phase, ops, p99, L0 files, backlog); the rest is
         * null or empty.
         */
        public static Window progress(int second, String phase, long ops, Long p99Us, Integer l0Files, Long backlog) {
            return new Window(
                    second, phase, true, ops, Map.of(), 0, 0, null, p99Us, null, backlog, null, null, null, l0Files,
                    null, null, null, null, null, null, null, null, null, null, Map.of(), null, null, null, null, null);
        }
    }

    /**
     * ADOC's view of a window (ADOC §4–§5), from the same snapshot as the window's other gauges: the two knobs it tunes
     * and the thresholds and memtable state its overflow tests read.
     *
     * @param maxSubcompactions the threads one L0→L1 compaction may split into, which {@code adoc} lets follow its thread
     *     count (ADOC.md); -1 for an engine without the knob
     * @param overflows the data overflows the snapshot shows, in ADOC's handling order ({@code L0O}, {@code RDO}, {@code
     *     MMO}), tested with RocksDB's own thresholds ({@code dev.sluice.compaction.adoc.Overflow}, early warning 1 — not
     *     the controller's default 0.75 —
     *     active memtable at 90 % of write_buffer_size)
     */
    public record Tuning(
            int maxBackgroundJobs,
            int maxSubcompactions,
            long writeBufferSize,
            int maxWriteBufferNumber,
            long activeMemtableBytes,
            int l0SlowdownTrigger,
            long softPendingCompactionBytesLimit,
            List<String> overflows) {}

    /**
     * One I/O class in one window: operations, bytes, and the microseconds those operations spent waiting in the Env's
     * scheduler and in the device (emulated delay + real file system); -1 where the source has no such counter.
     */
    public record Io(long ops, long bytes, long waitMicros, long deviceMicros) {
        public Io(long ops, long bytes) {
            this(ops, bytes, -1, -1);
        }
    }
}
