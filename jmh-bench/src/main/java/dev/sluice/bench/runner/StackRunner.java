package dev.sluice.bench.runner;

import dev.sluice.bench.metrics.CpuMeter;
import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.metrics.ProcStatus;
import dev.sluice.bench.metrics.TailThroughput;
import dev.sluice.bench.scenario.PhaseSpec;
import dev.sluice.bench.scenario.PreloadSpec;
import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.ScenarioParser;
import dev.sluice.bench.scenario.StackSpec;
import dev.sluice.bench.workload.AsyncOpenLoopDriver;
import dev.sluice.bench.workload.ClosedLoopDriver;
import dev.sluice.bench.workload.KeyCodec;
import dev.sluice.bench.workload.LoadDriver;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpKind;
import dev.sluice.bench.workload.OpSink;
import dev.sluice.bench.workload.OpenLoopDriver;
import dev.sluice.bench.workload.StoreWorkload;
import dev.sluice.compaction.adoc.Overflow;
import dev.sluice.core.Batch;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one stack of a scenario in this JVM: open the node on a fresh data directory, preload, settle, then run the
 * phases back to back on a timeline of 1-s windows and summarize. {@link BenchCommand} normally calls this in a child
 * JVM per stack ({@link StackMain}) so that each stack's peak RSS is its own.
 *
 * <p><b>Timeline.</b> Window k covers {@code [T0 + k s, T0 + (k+1) s)}; phases start and end on window boundaries. At
 * each boundary the window loop (this thread) swaps the latency recorders, reads the newest control-plane snapshot
 * (delivered by {@code ControlPlane.addSnapshotListener}), samples VmRSS and the open-loop backlog (with async dispatch:
 * the requests in flight), and starts or stops phase drivers. Requests still running when their phase ends complete in
 * the following windows; requests that never started are counted per phase. A window's throughput is the number of
 * requests that completed in it.
 */
public final class StackRunner {
    private static final Logger log = LoggerFactory.getLogger(StackRunner.class);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int PRELOAD_BATCH = 256;

    /** Progress callbacks, called on the runner's thread. */
    public interface Progress {
        void preload(long done, long total);

        void settling(double seconds);

        void window(int second, int totalSeconds, Results.Window w);
    }

    /** How the stack is run, decided by the caller. */
    public record Options(boolean deviceEnabled, String environmentNote, String rssMode) {}

    private final Scenario scenario;
    private final StackSpec stack;
    private final Path dataDir;
    private final Options options;
    private final Progress progress;
    private volatile NodeSnapshot latest;

    public StackRunner(Scenario scenario, StackSpec stack, Path dataDir, Options options, Progress progress) {
        this.scenario = scenario;
        this.stack = stack;
        this.dataDir = dataDir;
        this.options = options;
        this.progress = progress;
    }

    /**
     * The stack's node configuration: its options over a fresh data dir; Env options only with the device. Relative paths
     * in the stack's options resolve against the data dir, so the data dir itself is made absolute first: a relative one
     * (the default {@code --out bench-out/...}) was resolved against itself and the node wrote to a nested copy of the
     * path, where the runner's own readers (the compaction LOGs) did not find it.
     */
    static SluiceConfig config(StackSpec stack, Path dataDir, boolean deviceEnabled) {
        dataDir = dataDir.toAbsolutePath();
        Properties p = ScenarioParser.toProperties(stack, dataDir);
        boolean anyEnv = false;
        for (String k : List.copyOf(p.stringPropertyNames())) {
            if (k.startsWith("env.")) {
                if (deviceEnabled) {
                    anyEnv = true;
                } else {
                    p.remove(k);
                }
            }
        }
        if (anyEnv && !p.containsKey(SluiceConfig.ENV)) {
            // Env options only mean something on the priority Env: fail rather than silently run without them.
            p.setProperty(SluiceConfig.ENV, "priority");
        }
        return SluiceConfig.fromProperties(p, dataDir);
    }

    public Results.Stack run() throws InterruptedException {
        if (scenario.tenants() != null) {
            return new TenantRunner(scenario, stack, dataDir, options, progress).run();
        }
        long wallStart = System.nanoTime();
        SluiceConfig config = config(stack, dataDir, options.deviceEnabled());
        log.info(
                "stack {}: opening {} (profile {}, controls {})",
                stack.name(),
                dataDir,
                config.profile(),
                config.controls());
        // The preload runs without the stack's controllers, on a node that is then closed and opened again with them:
        // the controllers start on the loaded store and see only the measured load. Otherwise a controller would warm
        // up on the preload (CruiseDB's t_0 came from batched loader writes) and enter the phases in a state the
        // preload left behind — one reason the K1 = K2 = 0.1 setting of cruise-k-sweep started its phase at 300/s.
        Results.Preload preload;
        try (SluiceNode loader =
                Sluice.open(config.toBuilder().withoutControls().build())) {
            preload = preload(loader, loader.defaultPartition());
        }
        try (SluiceNode node = Sluice.open(config)) {
            node.controlPlane().addSnapshotListener(s -> latest = s);
            Partition partition = node.defaultPartition();
            Timeline t = runPhases(node, partition);
            t.chains = CompactionChains.summarize(CompactionChains.read(
                    dataDir.resolve("partitions").resolve(partition.name()), t.measuredWallMicros));
            Map<String, Long> events = new TreeMap<>();
            for (ControlEvent e : node.recentEvents()) {
                events.merge(e.controller() + ":" + e.outcome(), 1L, Long::sum);
            }
            Results.Environment env = new Results.Environment(
                    node.priorityEnv(),
                    options.deviceEnabled()
                            && node.priorityEnv()
                            && !scenario.device().isEmpty()
                            && !"false".equalsIgnoreCase(scenario.device().getOrDefault("enabled", "true")),
                    config.envOptions(),
                    options.rssMode(),
                    options.environmentNote());
            long peakRss = options.rssMode().equals("child-jvm")
                    ? ProcStatus.peakRssBytes()
                    : t.windows.stream()
                            .map(Results.Window::rssBytes)
                            .filter(v -> v != null)
                            .mapToLong(Long::longValue)
                            .max()
                            .orElse(-1);
            Results.Metrics metrics = t.metrics(peakRss);
            double wall = (System.nanoTime() - wallStart) / 1e9;
            return new Results.Stack(
                    stack.name(),
                    stack.description(),
                    false,
                    config.profile(),
                    config.controls(),
                    new TreeMap<>(stack.options()),
                    new TreeMap<>(stack.sysprops()),
                    env,
                    preload,
                    t.phases,
                    metrics,
                    Map.of(),
                    events,
                    Math.round(wall * 10) / 10.0,
                    t.windows);
        }
    }

    // ---------------------------------------------------------------- preload

    private Results.Preload preload(SluiceNode node, Partition partition) throws InterruptedException {
        PreloadSpec spec = scenario.preload();
        long start = System.nanoTime();
        if (spec.keys() > 0) {
            KeyCodec codec = new KeyCodec(spec.keyBytes(), spec.clusterKeys());
            AtomicLong done = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            List<RuntimeException> failures = new ArrayList<>();
            long per = (spec.keys() + spec.threads() - 1) / spec.threads();
            for (int i = 0; i < spec.threads(); i++) {
                long from = i * per;
                long to = Math.min(spec.keys(), from + per);
                int id = i;
                Thread th = new Thread(
                        () -> {
                            try {
                                load(partition, codec, spec.valueBytes(), from, to, done, scenario.seed() + id);
                            } catch (RuntimeException e) {
                                synchronized (failures) {
                                    failures.add(e);
                                }
                            }
                        },
                        "bench-preload-" + i);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
            while (threads.stream().anyMatch(Thread::isAlive)) {
                progress.preload(done.get(), spec.keys());
                Thread.sleep(250);
            }
            progress.preload(done.get(), spec.keys());
            if (!failures.isEmpty()) {
                throw new IllegalStateException(
                        "preload failed: " + failures.get(0).getMessage(), failures.get(0));
            }
            if (spec.flush()) {
                partition.flush();
            }
        }
        double loadSeconds = (System.nanoTime() - start) / 1e9;
        long settleStart = System.nanoTime();
        boolean settled = settle(node, partition.name(), spec.settleSeconds());
        double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
        log.info(
                "stack {}: preloaded {} keys in {} s, settled={} after {} s",
                stack.name(),
                spec.keys(),
                round1(loadSeconds),
                settled,
                round1(settleSeconds));
        return new Results.Preload(spec.keys(), spec.bytes(), round1(loadSeconds), round1(settleSeconds), settled);
    }

    /**
     * Writes keys {@code [from, to)} in batches. A batch is sized to the partition's write quota, if it has one: a
     * write pays for its units before it runs, and a batch larger than the quota's burst plus its wait can never pass
     * (a probe, 2026-11-29: the preload of a stack with a 100-WCU/s quota retried such a batch for ever, in silence).
     * Refusals are retried; ten minutes without one batch through ends the preload with an error.
     */
    static void load(Partition p, KeyCodec codec, int valueBytes, long from, long to, AtomicLong done, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] value = new byte[valueBytes];
        for (long i = from; i < to; ) {
            Batch b = new Batch();
            long end = Math.min(to, i + batchRecords(p.quota(), codec.key(i).length + valueBytes));
            for (long k = i; k < end; k++) {
                rnd.nextBytes(value);
                b.put(codec.key(k), value);
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (true) {
                try {
                    p.write(b);
                    break;
                } catch (OverloadedException | QuotaExceededException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("preload of partition '" + p.name() + "': a batch of "
                                + (end - i) + " records was refused for 10 minutes: " + e.getMessage());
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
            }
            done.addAndGet(end - i);
            i = end;
        }
    }

    /** Records per preload batch: {@link #PRELOAD_BATCH}, or fewer so that a batch is at most half of what can pass. */
    static long batchRecords(dev.sluice.core.quota.PartitionQuota q, int recordBytes) {
        if (q.wcu() <= 0) {
            return PRELOAD_BATCH;
        }
        double passable = q.largestRequest(q.wcu());
        long units = dev.sluice.core.quota.PartitionQuota.writeUnits(recordBytes);
        if (units > passable) {
            throw new IllegalStateException("preload: a record of " + recordBytes + " bytes is " + units + " WCUs,"
                    + " more than the partition's quota can ever admit in one write (" + (long) passable
                    + "): raise its wcu, quota.burst.ms or quota.max.wait.ms, or use smaller values");
        }
        // a batch of n records takes at least n units: at most half of what can pass, whole records
        long byUnits = (long) Math.floor(passable / 2 / units);
        return Math.max(1, Math.min(PRELOAD_BATCH, byUnits));
    }

    /** Waits until nothing is pending or running (flushes, compactions), up to {@code maxSeconds}. */
    private boolean settle(SluiceNode node, String partition, int maxSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + maxSeconds * SECOND;
        long start = System.nanoTime();
        while (true) {
            // The control plane's own snapshot (ticks every tick.period): sampling outside the tick would shift the
            // controllers' deltas.
            NodeSnapshot ns = node.latestSnapshot();
            LsmSnapshot s = ns.partition(partition);
            boolean quiet = ns.timeNanos() > start // taken after the preload ended (same System.nanoTime clock)
                    && s.pendingCompactionBytes() == 0
                    && s.runningCompactions() == 0
                    && s.runningFlushes() == 0
                    && s.immutableMemtables() == 0;
            if (quiet) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            progress.settling((System.nanoTime() - start) / 1e9);
            Thread.sleep(500);
        }
    }

    // ---------------------------------------------------------------- phases

    /** Everything the window loop produced. */
    private final class Timeline {
        final List<Results.Window> windows = new ArrayList<>();
        final List<Results.Phase> phases = new ArrayList<>();
        final Map<OpKind, Histogram> measuredLatency = new EnumMap<>(OpKind.class);
        final Histogram measuredAll = new Histogram(3);
        long rejected;
        long errors;
        NodeSnapshot measuredStart;
        NodeSnapshot measuredEnd;
        String partition;
        final WriteGaps gaps = new WriteGaps();
        /** Process CPU time during the measured windows (ns); -1 when the JVM cannot tell. */
        long measuredCpuNanos;
        /** Wall-clock ranges [from, to) in µs of the measured phases, for the compaction-chain count. */
        final List<long[]> measuredWallMicros = new ArrayList<>();

        Results.Chains chains;
        DeviceMeters device;
        /** Latency per phase index and operation kind, over all of the phase's windows. */
        final Map<Integer, Map<OpKind, Histogram>> phaseLatency = new java.util.HashMap<>();

        Results.Metrics metrics(long peakRss) {
            List<Results.Window> m =
                    windows.stream().filter(Results.Window::measured).toList();
            double[] th = m.stream().mapToDouble(Results.Window::ops).toArray();
            long ops = m.stream().mapToLong(Results.Window::ops).sum();
            double mean = m.isEmpty() ? 0 : (double) ops / m.size();
            int zero = (int) m.stream().filter(w -> w.ops() == 0).count();
            // CruiseDB Fig. 12: the per-second p99 line, its maximum and its mean (windows with completions only)
            long[] p99s = m.stream()
                    .map(Results.Window::p99Us)
                    .filter(v -> v != null)
                    .mapToLong(Long::longValue)
                    .toArray();
            Long maxWindowP99 = p99s.length == 0
                    ? null
                    : java.util.Arrays.stream(p99s).max().getAsLong();
            Long meanWindowP99 = p99s.length == 0
                    ? null
                    : Math.round(java.util.Arrays.stream(p99s).average().getAsDouble());
            double stallMicros = m.stream()
                    .map(Results.Window::stallMicros)
                    .filter(v -> v != null)
                    .mapToLong(Long::longValue)
                    .sum();
            Integer peakQueued = m.stream()
                    .map(Results.Window::admissionQueued)
                    .filter(v -> v != null)
                    .max(Integer::compare)
                    .orElse(null);
            Map<String, LatencyStats> lat = new LinkedHashMap<>();
            lat.put("all", LatencyStats.of(measuredAll));
            Histogram writes = new Histogram(3);
            measuredLatency.forEach((k, h) -> {
                if (k.writes()) {
                    writes.add(h);
                }
            });

            for (OpKind k : OpKind.values()) {
                Histogram h = measuredLatency.get(k);
                if (h != null && h.getTotalCount() > 0) {
                    lat.put(k.id(), LatencyStats.of(h));
                }
            }
            Double wa = null;
            Double ra = null;
            Double ioa = null;
            Long input = null;
            if (measuredStart != null && measuredEnd != null) {
                LsmSnapshot a = measuredStart.partitions().get(partition);
                LsmSnapshot b = measuredEnd.partitions().get(partition);
                if (a != null && b != null) {
                    long userWritten = b.ops().bytesWritten() - a.ops().bytesWritten();
                    input = userWritten;
                    long engineWritten = (b.walBytes() - a.walBytes())
                            + (b.flushBytes() - a.flushBytes())
                            + (b.compactionWriteBytes() - a.compactionWriteBytes());
                    if (userWritten > 0) {
                        wa = round3((double) engineWritten / userWritten);
                        // vLSM §6's I/O amplification: every byte the engine read or wrote per user byte written
                        ioa = round3((double) (engineWritten + b.compactionReadBytes() - a.compactionReadBytes())
                                / userWritten);
                    }
                    long userRead = b.ops().bytesRead() - a.ops().bytesRead();
                    IoStats ioA = nodeIo(measuredStart);
                    IoStats ioB = nodeIo(measuredEnd);
                    long devRead = -1;
                    if (ioB.source() == IoStats.Source.ENV) {
                        IoClassStats g = ioB.get(IoClass.USER_GET).minus(ioA.get(IoClass.USER_GET));
                        IoClassStats sc = ioB.get(IoClass.USER_SCAN).minus(ioA.get(IoClass.USER_SCAN));
                        if (g.bytes() >= 0 && sc.bytes() >= 0) {
                            devRead = g.bytes() + sc.bytes();
                        }
                    }
                    if (userRead > 0 && devRead >= 0) {
                        ra = round3((double) devRead / userRead);
                    }
                }
            }
            return new Results.Metrics(
                    m.size(),
                    ops,
                    round1(mean),
                    TailThroughput.of(th, 99),
                    TailThroughput.of(th, 95),
                    th.length == 0 ? 0 : java.util.Arrays.stream(th).min().orElse(0),
                    th.length == 0 ? 0 : java.util.Arrays.stream(th).max().orElse(0),
                    maxWindowP99,
                    meanWindowP99,
                    rejected,
                    errors,
                    peakQueued,
                    zero,
                    round3(stallMicros / 1e6),
                    wa,
                    ra,
                    peakRss,
                    lat,
                    gaps.longestNanos() < 0 ? null : gaps.longestNanos() / 1_000_000,
                    ioa,
                    chains,
                    writes.getTotalCount() == 0 ? null : LatencyStats.of(writes),
                    device == null ? null : device.result(prefetchIos()),
                    measuredCpuNanos < 0 || m.isEmpty() ? null : round3(measuredCpuNanos / 1e9),
                    input);
        }

        /** PREFETCH-class I/Os over the measured windows, when the Env counted them. */
        private Long prefetchIos() {
            if (measuredStart == null || measuredEnd == null) {
                return null;
            }
            IoStats a = nodeIo(measuredStart), b = nodeIo(measuredEnd);
            if (b.source() != IoStats.Source.ENV) {
                return null;
            }
            return b.get(IoClass.PREFETCH).ops() - a.get(IoClass.PREFETCH).ops();
        }
    }

    private Timeline runPhases(SluiceNode node, Partition partition) throws InterruptedException {
        Timeline t = new Timeline();
        t.partition = partition.name();
        t.device = new DeviceMeters(node.meterRegistry());
        List<PhaseSpec> phases = scenario.phases();
        int total = scenario.totalSeconds();
        int[] phaseOfSecond = new int[total];
        int[] phaseStart = new int[phases.size()];
        int s = 0;
        for (int i = 0; i < phases.size(); i++) {
            phaseStart[i] = s;
            for (int j = 0; j < phases.get(i).durationSeconds(); j++) {
                phaseOfSecond[s++] = i;
            }
        }
        PreloadSpec pre = scenario.preload();
        KeyCodec codec = new KeyCodec(pre.keyBytes(), pre.clusterKeys());
        AtomicLong keyCount = new AtomicLong(pre.keys());
        long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        WindowRecorder recorder = new WindowRecorder(t.gaps, t0);
        PhaseSpec[] resolved = phases.toArray(new PhaseSpec[0]);
        List<LoadDriver> drivers = new ArrayList<>();

        NodeSnapshot prev = latest != null ? latest : node.latestSnapshot();
        long cpuAtWindowStart = ProcStatus.cpuNanos();
        CpuMeter cpuMeter = new CpuMeter();
        LoadDriver current = null;
        int currentPhase = -1;
        long backlogMaxAcrossPhase = 0;
        StoreWorkload nextTask = null;
        for (int k = 0; k <= total; k++) {
            int upcoming = k < total ? phaseOfSecond[k] : -1;
            if (upcoming >= 0 && upcoming != currentPhase) {
                // Built before the boundary (it fills a 4 MiB value pool), so an open-loop phase's first arrivals are
                // not late; resolveCapacity below changes only the shape, not what the task runs.
                PhaseSpec p = phases.get(upcoming);
                nextTask = new StoreWorkload(
                        partition,
                        codec,
                        pre.valueBytes(),
                        keyCount,
                        p.mix(),
                        p.distribution(),
                        p.scanLength(),
                        scenario.seed() + 7919L * (upcoming + 1));
            }
            sleepUntil(t0 + k * SECOND);
            if (k > 0) {
                // Close window k-1.
                int pi = phaseOfSecond[k - 1];
                PhaseSpec phase = phases.get(pi);
                WindowRecorder.Interval iv = recorder.take();
                long cpu = ProcStatus.cpuNanos();
                if (phase.measured() && t.measuredCpuNanos >= 0) {
                    t.measuredCpuNanos =
                            cpu < 0 || cpuAtWindowStart < 0 ? -1 : t.measuredCpuNanos + (cpu - cpuAtWindowStart);
                }
                cpuAtWindowStart = cpu;
                NodeSnapshot snap = latest != null ? latest : prev;
                Long backlog = null;
                Long backlogMax = null;
                if (phase.mode() == PhaseSpec.Mode.OPEN && current != null) {
                    backlog = current.backlog();
                    backlogMax = current.takeMaxBacklog();
                    backlogMaxAcrossPhase = Math.max(backlogMaxAcrossPhase, backlogMax);
                }
                Results.Window w =
                        window(k - 1, phase, iv, snap, prev, t.partition, backlog, backlogMax, cpuMeter.sample());
                t.windows.add(w);
                t.device.window(phase.measured());
                Map<OpKind, Histogram> byKind = t.phaseLatency.computeIfAbsent(pi, x -> new EnumMap<>(OpKind.class));
                iv.perKind().forEach((kind, h) -> {
                    if (h.getTotalCount() > 0) {
                        byKind.computeIfAbsent(kind, x -> new Histogram(3)).add(h);
                    }
                });
                if (phase.measured()) {
                    if (t.measuredStart == null) {
                        t.measuredStart = prev;
                    }
                    t.measuredEnd = snap;
                    t.rejected += iv.rejected();
                    t.errors += iv.errors();
                    iv.perKind().forEach((kind, h) -> {
                        if (h.getTotalCount() > 0) {
                            t.measuredLatency
                                    .computeIfAbsent(kind, x -> new Histogram(3))
                                    .add(h);
                            t.measuredAll.add(h);
                        }
                    });
                }
                prev = snap;
                progress.window(k - 1, total, w);
            }
            int nextPhase = k < total ? phaseOfSecond[k] : -1;
            if (nextPhase != currentPhase) {
                measuredSegment(t, nextPhase < 0 ? null : phases.get(nextPhase), t0 + k * SECOND);
                if (current != null) {
                    current.stop();
                    t.phases.add(phaseResult(
                            resolved[currentPhase],
                            phaseStart[currentPhase],
                            current,
                            backlogMaxAcrossPhase,
                            latencyStats(t.phaseLatency.get(currentPhase))));
                }
                backlogMaxAcrossPhase = 0;
                current = null;
                if (nextPhase >= 0) {
                    PhaseSpec p = resolveCapacity(phases.get(nextPhase), t.windows);
                    resolved[nextPhase] = p;
                    StoreWorkload task = nextTask;
                    long seed = scenario.seed() * 31 + nextPhase;
                    current = driver(p, task, recorder, seed);
                    drivers.add(current);
                    current.start(t0 + k * SECOND, t0 + (k + p.durationSeconds()) * SECOND);
                }
                currentPhase = nextPhase;
            }
        }
        for (LoadDriver d : drivers) {
            if (!d.await(120_000)) {
                log.warn("stack {}: some client threads were still running 120 s after the run ended", stack.name());
            }
        }
        return t;
    }

    /**
     * {@code p} with a {@link LoadShape.OfCapacity} shape replaced by a constant rate: the fraction of the mean
     * throughput of the named earlier phase's windows, its first window left out (it starts cold). Other phases as they
     * are.
     */
    PhaseSpec resolveCapacity(PhaseSpec p, List<Results.Window> windows) {
        if (!(p.shape() instanceof LoadShape.OfCapacity c)) {
            return p;
        }
        double capacity = capacity(windows, c.phase());
        LoadShape.Constant rate = c.resolve(capacity);
        log.info(
                "stack {}: phase {} offers {} req/s = {} x the {} req/s phase {} sustained",
                stack.name(),
                p.name(),
                round1(rate.rate()),
                c.fraction(),
                round1(capacity),
                c.phase());
        return p.withShape(rate);
    }

    /** Mean completed requests per second over the windows of {@code phase}, without its first window. */
    static double capacity(List<Results.Window> windows, String phase) {
        List<Results.Window> w =
                windows.stream().filter(x -> x.phase().equals(phase)).toList();
        if (w.isEmpty()) {
            throw new IllegalStateException("capacity phase '" + phase + "' has no windows: it has not run yet");
        }
        List<Results.Window> warm = w.size() > 1 ? w.subList(1, w.size()) : w;
        return warm.stream().mapToLong(Results.Window::ops).average().orElse(0);
    }

    /**
     * At a phase boundary: ends the running measured segment (longest write gap, wall-clock range for the compaction
     * chains) and opens one if {@code next} is measured — write gaps only when its mix writes.
     */
    private static void measuredSegment(Timeline t, PhaseSpec next, long boundaryNanos) {
        long wallMicros = System.currentTimeMillis() * 1000;
        t.gaps.stop(boundaryNanos);
        if (!t.measuredWallMicros.isEmpty()) {
            long[] last = t.measuredWallMicros.get(t.measuredWallMicros.size() - 1);
            if (last[1] == Long.MAX_VALUE) {
                last[1] = wallMicros;
            }
        }
        if (next != null && next.measured()) {
            t.measuredWallMicros.add(new long[] {wallMicros, Long.MAX_VALUE});
            if (next.mix().weights().keySet().stream().anyMatch(OpKind::writes)) {
                t.gaps.start(boundaryNanos);
            }
        }
    }

    /** The phase's load driver: closed loop, or open loop with synchronous workers or asynchronous dispatch. */
    static LoadDriver driver(PhaseSpec p, StoreWorkload task, OpSink sink, long seed) {
        if (p.mode() == PhaseSpec.Mode.CLOSED) {
            return new ClosedLoopDriver(p.name(), p.threads(), task, sink, System::nanoTime, seed);
        }
        return switch (p.dispatch()) {
            case SYNC ->
                new OpenLoopDriver(
                        p.name(),
                        p.shape(),
                        p.poisson(),
                        p.maxBacklog(),
                        p.threads(),
                        task,
                        sink,
                        System::nanoTime,
                        seed);
            case ASYNC ->
                new AsyncOpenLoopDriver(
                        p.name(), p.shape(), p.poisson(), p.maxInflight(), task, sink, System::nanoTime, seed);
        };
    }

    static void sleepUntil(long deadline) throws InterruptedException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            LockSupport.parkNanos(left);
        }
    }

    /** {@code all} plus one entry per kind with completions; empty without any. */
    static Map<String, LatencyStats> latencyStats(Map<OpKind, Histogram> byKind) {
        Map<String, LatencyStats> lat = new LinkedHashMap<>();
        if (byKind == null || byKind.isEmpty()) {
            return lat;
        }
        Histogram all = new Histogram(3);
        byKind.values().forEach(all::add);
        lat.put("all", LatencyStats.of(all));
        for (OpKind k : OpKind.values()) {
            Histogram h = byKind.get(k);
            if (h != null && h.getTotalCount() > 0) {
                lat.put(k.id(), LatencyStats.of(h));
            }
        }
        return lat;
    }

    private static Results.Phase phaseResult(
            PhaseSpec p, int start, LoadDriver d, long maxBacklog, Map<String, LatencyStats> latency) {
        boolean open = p.mode() == PhaseSpec.Mode.OPEN;
        boolean async = open && p.dispatch() == PhaseSpec.Dispatch.ASYNC;
        return new Results.Phase(
                p.name(),
                p.mode().name().toLowerCase(java.util.Locale.ROOT),
                open ? p.dispatch().name().toLowerCase(java.util.Locale.ROOT) : null,
                start,
                p.durationSeconds(),
                p.measured(),
                async ? null : p.threads(),
                p.mix().toString(),
                p.distribution().toString(),
                open ? describe(p.shape()) : null,
                open ? round1(p.shape().meanRate(p.durationSeconds())) : null,
                open ? d.generated() : null,
                open ? d.unstartedAtStop() : null,
                open ? d.dropped() : null,
                open ? maxBacklog : null,
                latency);
    }

    static String describe(LoadShape s) {
        if (s instanceof LoadShape.Constant c) {
            return "constant(" + fmt(c.rate()) + "/s)";
        } else if (s instanceof LoadShape.Step st) {
            return "step(" + st.rates().stream().map(StackRunner::fmt).toList() + " every " + fmt(st.stepSeconds())
                    + " s)";
        } else if (s instanceof LoadShape.Square q) {
            return "square(low " + fmt(q.low()) + "/s, high " + fmt(q.high()) + "/s, period " + fmt(q.periodSeconds())
                    + " s, duty " + q.duty() + ")";
        } else if (s instanceof LoadShape.Mixgraph m) {
            return "mixgraph(mean " + fmt(m.mean()) + "/s, amplitude " + fmt(m.amplitude()) + "/s, period "
                    + fmt(m.periodSeconds()) + " s, noise " + m.noise() + ")";
        }
        return String.valueOf(s);
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    static IoStats nodeIo(NodeSnapshot s) {
        if (s.io().source() != IoStats.Source.NONE || s.partitions().isEmpty()) {
            return s.io();
        }
        IoStats sum = null;
        for (LsmSnapshot p : s.partitions().values()) {
            sum = sum == null ? p.io() : sum.plus(p.io());
        }
        return sum;
    }

    static Results.Window window(
            int second,
            PhaseSpec phase,
            WindowRecorder.Interval iv,
            NodeSnapshot snap,
            NodeSnapshot prev,
            String partition,
            Long backlog,
            Long backlogMax,
            CpuMeter.Shares cpu) {
        Histogram all = new Histogram(3);
        Histogram writes = new Histogram(3);
        Histogram reads = new Histogram(3);
        Map<String, Long> byKind = new LinkedHashMap<>();
        for (Map.Entry<OpKind, Histogram> e : iv.perKind().entrySet()) {
            if (e.getValue().getTotalCount() > 0) {
                all.add(e.getValue());
                (e.getKey().writes() ? writes : reads).add(e.getValue());
                byKind.put(e.getKey().id(), e.getValue().getTotalCount());
            }
        }
        long ops = all.getTotalCount();
        LsmSnapshot ps = snap == null ? null : snap.partitions().get(partition);
        LsmSnapshot pp = prev == null ? null : prev.partitions().get(partition);
        Map<String, Results.Io> io = new LinkedHashMap<>();
        if (snap != null) {
            IoStats cur = nodeIo(snap);
            IoStats before = prev == null ? IoStats.EMPTY : nodeIo(prev);
            for (IoClass c : IoClass.values()) {
                IoClassStats d = cur.get(c).minus(before.get(c));
                io.put(c.name(), new Results.Io(d.ops(), d.bytes(), micros(d.waitNanos()), micros(d.deviceNanos())));
            }
        }
        long rss = ProcStatus.rssBytes();
        return new Results.Window(
                second,
                phase.name(),
                phase.measured(),
                ops,
                byKind,
                iv.rejected(),
                iv.errors(),
                ops == 0 ? null : all.getValueAtPercentile(50),
                ops == 0 ? null : all.getValueAtPercentile(99),
                ops == 0 ? null : all.getMaxValue(),
                backlog,
                backlogMax,
                ps == null ? null : round3(ps.memtableWatermark()),
                ps == null ? null : round3(ps.unmergedWatermark()),
                ps == null ? null : ps.l0Files(),
                ps == null ? null : ps.immutableMemtables(),
                ps == null ? null : ps.pendingCompactionBytes(),
                ps == null ? null : ps.levels().stream().map(LevelInfo::bytes).toList(),
                ps == null
                        ? null
                        : ps.levels().stream().map(LevelInfo::targetBytes).toList(),
                ps == null ? null : ps.stall().name(),
                ps == null || pp == null ? null : Math.max(0, ps.stallMicros() - pp.stallMicros()),
                ps == null ? null : ps.runningFlushes(),
                ps == null ? null : ps.runningCompactions(),
                ps == null || Double.isInfinite(ps.admissionRate()) || Double.isNaN(ps.admissionRate())
                        ? null
                        : round1(ps.admissionRate()),
                admissionQueued(snap),
                io,
                rss < 0 ? null : rss,
                ps == null ? null : tuning(ps),
                writes.getTotalCount() == 0 ? null : writes.getValueAtPercentile(99),
                reads.getTotalCount() == 0 ? null : reads.getValueAtPercentile(99),
                cpu);
    }

    /**
     * ADOC's knobs and overflows of one partition snapshot, the overflows at RocksDB's own thresholds (early warning 1:
     * where RocksDB stalls, which is what the report charges stall time to; the controller's default acts earlier).
     */
    static Results.Tuning tuning(LsmSnapshot ps) {
        return new Results.Tuning(
                ps.maxBackgroundJobs(),
                ps.maxSubcompactions(),
                ps.writeBufferSize(),
                ps.maxWriteBufferNumber(),
                ps.activeMemtableBytes(),
                ps.l0SlowdownTrigger(),
                ps.softPendingLimit(),
                Overflow.detect(ps, 1.0, 0.9).stream().map(Enum::name).toList());
    }

    /**
     * Requests waiting in admission gates at the snapshot, summed over the partitions a gate limits (finite rate, or
     * requests waiting); null when no partition has one, or without a snapshot.
     */
    static Integer admissionQueued(NodeSnapshot snap) {
        if (snap == null) {
            return null;
        }
        Integer sum = null;
        for (LsmSnapshot p : snap.partitions().values()) {
            if (Double.isFinite(p.admissionRate()) || p.admissionQueued() > 0) {
                sum = (sum == null ? 0 : sum) + p.admissionQueued();
            }
        }
        return sum;
    }

    static double round1(double d) {
        return Math.round(d * 10) / 10.0;
    }

    static double round2(double d) {
        return Math.round(d * 100) / 100.0;
    }

    static double round3(double d) {
        return Math.round(d * 1000) / 1000.0;
    }

    /** Nanoseconds to microseconds, keeping -1 (unknown) as it is. */
    private static long micros(long nanos) {
        return nanos < 0 ? -1 : nanos / 1000;
    }
}
