package dev.sluice.bench.runner;

import dev.sluice.bench.metrics.CpuMeter;
import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.metrics.ProcStatus;
import dev.sluice.bench.metrics.TailThroughput;
import dev.sluice.bench.scenario.PhaseSpec;
import dev.sluice.bench.scenario.PreloadSpec;
import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.StackSpec;
import dev.sluice.bench.scenario.TenantsSpec;
import dev.sluice.bench.workload.AsyncOpenLoopDriver;
import dev.sluice.bench.workload.KeyCodec;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpKind;
import dev.sluice.bench.workload.OpMix;
import dev.sluice.bench.workload.StoreWorkload;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.quota.QuotaStats;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one stack of a multi-tenant scenario ({@link TenantsSpec}): every partition of the node is a tenant with its own
 * key space, its own open loop (async dispatch, one generator thread each) and its own latency recorder, on the same
 * 1-s timeline as {@link StackRunner}. Each tenant offers the phase's {@code rate}; the noisy tenant offers {@code
 * noisy.factor} × its quota rate in its phases.
 *
 * <p>Preload: {@code preload.keys} keys into every tenant, on a node without controllers and with the quotas lifted
 * (the preload is not the tenants' traffic), closed before the measured node opens.
 *
 * <p>Per tenant and phase it reports offered and served requests/s, the read and write units the partition's quota
 * meter charged, latency from the intended start (so quota and admission waits count), throttled and refused requests.
 * A request completing after its phase ended counts in the phase of the window it completed in. The node-level windows
 * (the usual {@code windows[]}) aggregate every tenant; their LSM gauges are the noisy tenant's partition.
 */
final class TenantRunner {
    private static final Logger log = LoggerFactory.getLogger(TenantRunner.class);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final Scenario scenario;
    private final TenantsSpec spec;
    private final StackSpec stack;
    private final Path dataDir;
    private final StackRunner.Options options;
    private final StackRunner.Progress progress;
    private volatile NodeSnapshot latest;

    TenantRunner(
            Scenario scenario,
            StackSpec stack,
            Path dataDir,
            StackRunner.Options options,
            StackRunner.Progress progress) {
        this.scenario = scenario;
        this.spec = scenario.tenants();
        this.stack = stack;
        this.dataDir = dataDir;
        this.options = options;
        this.progress = progress;
    }

    /** Requests/s {@code tenant} offers in {@code phase}. */
    double offeredRate(String tenant, PhaseSpec phase) {
        if (tenant.equals(spec.noisy()) && spec.noisyPhases().contains(phase.name())) {
            return spec.noisyFactor() * quotaRate(spec, phase.mix());
        }
        return ((LoadShape.Constant) phase.shape()).rate();
    }

    /** The rate a tenant's contract allows for {@code mix}: reads are read and scan, writes insert and update, RMW both. */
    static double quotaRate(TenantsSpec spec, OpMix mix) {
        double reads = mix.fraction(OpKind.READ) + mix.fraction(OpKind.SCAN) + mix.fraction(OpKind.RMW);
        double writes = mix.fraction(OpKind.INSERT) + mix.fraction(OpKind.UPDATE) + mix.fraction(OpKind.RMW);
        return spec.quotaRate(reads, writes);
    }

    Results.Stack run() throws InterruptedException {
        long wallStart = System.nanoTime();
        SluiceConfig config = StackRunner.config(stack, dataDir, options.deviceEnabled());
        List<String> tenants = config.partitions();
        log.info(
                "stack {}: {} tenants {} (profile {}, controls {})",
                stack.name(),
                tenants.size(),
                tenants,
                config.profile(),
                config.controls());
        Results.Preload preload;
        try (SluiceNode loader =
                Sluice.open(config.toBuilder().withoutControls().build())) {
            for (String t : tenants) {
                loader.partition(t).setQuota(PartitionQuota.UNLIMITED);
            }
            preload = preload(loader, tenants);
        }
        try (SluiceNode node = Sluice.open(config)) {
            node.controlPlane().addSnapshotListener(s -> latest = s);
            Timeline t = runPhases(node, tenants);
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
                    t.metrics(peakRss),
                    Map.of(),
                    events,
                    Math.round(wall * 10) / 10.0,
                    t.windows,
                    t.tenantResults,
                    t.tenantP99,
                    config.controls().contains("deferral") ? t.deferralStage : null);
        }
    }

    // ---------------------------------------------------------------- preload

    private Results.Preload preload(SluiceNode node, List<String> tenants) throws InterruptedException {
        PreloadSpec pre = scenario.preload();
        long start = System.nanoTime();
        KeyCodec codec = new KeyCodec(pre.keyBytes());
        AtomicLong done = new AtomicLong();
        long total = pre.keys() * tenants.size();
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new ArrayList<>();
        for (int i = 0; i < tenants.size(); i++) {
            Partition p = node.partition(tenants.get(i));
            long seed = scenario.seed() + i;
            Thread th = new Thread(
                    () -> {
                        try {
                            StackRunner.load(p, codec, pre.valueBytes(), 0, pre.keys(), done, seed);
                            if (pre.flush()) {
                                p.flush();
                            }
                        } catch (RuntimeException e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "bench-preload-" + tenants.get(i));
            th.setDaemon(true);
            threads.add(th);
            th.start();
        }
        while (threads.stream().anyMatch(Thread::isAlive)) {
            progress.preload(done.get(), total);
            Thread.sleep(250);
        }
        progress.preload(done.get(), total);
        if (!failures.isEmpty()) {
            throw new IllegalStateException("preload failed: " + failures.get(0).getMessage(), failures.get(0));
        }
        double loadSeconds = (System.nanoTime() - start) / 1e9;
        long settleStart = System.nanoTime();
        boolean settled = false;
        long deadline = settleStart + pre.settleSeconds() * SECOND;
        while (true) {
            NodeSnapshot ns = node.sample();
            settled = ns.partitions().values().stream()
                    .allMatch(s -> s.pendingCompactionBytes() == 0
                            && s.runningCompactions() == 0
                            && s.runningFlushes() == 0
                            && s.immutableMemtables() == 0);
            if (settled || System.nanoTime() >= deadline) {
                break;
            }
            progress.settling((System.nanoTime() - settleStart) / 1e9);
            Thread.sleep(500);
        }
        double settleSeconds = (System.nanoTime() - settleStart) / 1e9;
        return new Results.Preload(
                total,
                total * (pre.keyBytes() + pre.valueBytes()),
                StackRunner.round1(loadSeconds),
                StackRunner.round1(settleSeconds),
                settled);
    }

    // ---------------------------------------------------------------- phases

    /** Per tenant, what one phase accumulated. */
    private static final class TenantPhase {
        final Histogram latency = new Histogram(3);
        long completed, rejected, errors, generated;
        QuotaStats quotaAtStart;
        /** Sorted runs (LsmSnapshot.sortedRuns) summed over the phase's seconds, and over its deferred seconds. */
        long runsSum, runsSeconds, deferredRunsSum, deferredSeconds;
    }

    private final class Timeline {
        final List<Results.Window> windows = new ArrayList<>();
        final List<Results.Phase> phases = new ArrayList<>();
        final List<Results.Tenant> tenantResults = new ArrayList<>();
        final Map<String, List<Long>> tenantP99 = new LinkedHashMap<>();
        final Map<String, List<Integer>> deferralStage = new LinkedHashMap<>();
        final Map<String, Integer> stageNow = new HashMap<>();
        long lastEventNanos = Long.MIN_VALUE;

        /** Applies the deferral stage changes recorded since the last call, then appends each tenant's stage. */
        void recordDeferralStages(SluiceNode node, List<String> tenants) {
            long newest = lastEventNanos;
            for (ControlEvent e : node.recentEvents()) {
                if (e.tickerNanos() > lastEventNanos
                        && e.outcome() == ControlEvent.Outcome.APPLIED
                        && e.action().startsWith("deferral_stage=")) {
                    stageNow.put(e.partition(), Integer.parseInt(e.action().substring("deferral_stage=".length())));
                    newest = Math.max(newest, e.tickerNanos());
                }
            }
            lastEventNanos = newest;
            for (String tenant : tenants) {
                deferralStage.computeIfAbsent(tenant, x -> new ArrayList<>()).add(stageNow.getOrDefault(tenant, 0));
            }
        }

        final Map<OpKind, Histogram> measuredLatency = new EnumMap<>(OpKind.class);
        final Histogram measuredAll = new Histogram(3);
        long rejected, errors;

        Results.Metrics metrics(long peakRss) {
            List<Results.Window> m =
                    windows.stream().filter(Results.Window::measured).toList();
            double[] th = m.stream().mapToDouble(Results.Window::ops).toArray();
            long ops = m.stream().mapToLong(Results.Window::ops).sum();
            long[] p99s = m.stream()
                    .map(Results.Window::p99Us)
                    .filter(v -> v != null)
                    .mapToLong(Long::longValue)
                    .toArray();
            double stallMicros = m.stream()
                    .map(Results.Window::stallMicros)
                    .filter(v -> v != null)
                    .mapToLong(Long::longValue)
                    .sum();
            Map<String, LatencyStats> lat = new LinkedHashMap<>();
            lat.put("all", LatencyStats.of(measuredAll));
            measuredLatency.forEach((k, h) -> {
                if (h.getTotalCount() > 0) {
                    lat.put(k.id(), LatencyStats.of(h));
                }
            });
            return new Results.Metrics(
                    m.size(),
                    ops,
                    m.isEmpty() ? 0 : StackRunner.round1((double) ops / m.size()),
                    TailThroughput.of(th, 99),
                    TailThroughput.of(th, 95),
                    th.length == 0 ? 0 : java.util.Arrays.stream(th).min().orElse(0),
                    th.length == 0 ? 0 : java.util.Arrays.stream(th).max().orElse(0),
                    p99s.length == 0
                            ? null
                            : java.util.Arrays.stream(p99s).max().getAsLong(),
                    p99s.length == 0
                            ? null
                            : Math.round(java.util.Arrays.stream(p99s).average().getAsDouble()),
                    rejected,
                    errors,
                    null,
                    (int) m.stream().filter(w -> w.ops() == 0).count(),
                    StackRunner.round3(stallMicros / 1e6),
                    null,
                    null,
                    peakRss,
                    lat,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }
    }

    private Timeline runPhases(SluiceNode node, List<String> tenants) throws InterruptedException {
        Timeline t = new Timeline();
        List<PhaseSpec> phases = scenario.phases();
        int total = scenario.totalSeconds();
        int[] phaseOfSecond = new int[total];
        int[] phaseStart = new int[phases.size()];
        int sec = 0;
        for (int i = 0; i < phases.size(); i++) {
            phaseStart[i] = sec;
            for (int j = 0; j < phases.get(i).durationSeconds(); j++) {
                phaseOfSecond[sec++] = i;
            }
        }
        PreloadSpec pre = scenario.preload();
        KeyCodec codec = new KeyCodec(pre.keyBytes());
        int n = tenants.size();
        Partition[] parts = new Partition[n];
        long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        WindowRecorder[] recorders = new WindowRecorder[n];
        WriteGaps gaps = new WriteGaps(); // not reported per tenant; WindowRecorder wants a sink for writes' times
        AtomicLong[] keyCounts = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            parts[i] = node.partition(tenants.get(i));
            recorders[i] = new WindowRecorder(gaps, t0);
            keyCounts[i] = new AtomicLong(pre.keys());
            t.tenantP99.put(tenants.get(i), new ArrayList<>());
        }
        PartitionQuota[] quotaAtOpen = new PartitionQuota[n];
        for (int i = 0; i < n; i++) {
            quotaAtOpen[i] = parts[i].quota();
        }
        String gaugePartition = spec.noisy();
        List<AsyncOpenLoopDriver> all = new ArrayList<>();
        AsyncOpenLoopDriver[] current = null;
        TenantPhase[] acc = null;
        int currentPhase = -1;
        long maxInflight = 0;
        NodeSnapshot prev = latest != null ? latest : node.latestSnapshot();
        CpuMeter cpuMeter = new CpuMeter();
        StoreWorkload[] nextTasks = null;
        for (int k = 0; k <= total; k++) {
            int upcoming = k < total ? phaseOfSecond[k] : -1;
            if (upcoming >= 0 && upcoming != currentPhase) {
                // Built before the boundary: each StoreWorkload fills a 4 MiB value pool, and building them after it
                // started the later tenants' arrivals milliseconds late (their first second's p99 showed it).
                nextTasks = new StoreWorkload[n];
                PhaseSpec p = phases.get(upcoming);
                for (int i = 0; i < n; i++) {
                    nextTasks[i] = new StoreWorkload(
                            parts[i],
                            codec,
                            pre.valueBytes(),
                            keyCounts[i],
                            p.mix(),
                            p.distribution(),
                            p.scanLength(),
                            scenario.seed() + 7919L * (upcoming + 1) + 104729L * i);
                }
            }
            StackRunner.sleepUntil(t0 + k * SECOND);
            if (k > 0) {
                PhaseSpec phase = phases.get(phaseOfSecond[k - 1]);
                Map<OpKind, Histogram> merged = new EnumMap<>(OpKind.class);
                long rej = 0, err = 0;
                for (int i = 0; i < n; i++) {
                    WindowRecorder.Interval iv = recorders[i].take();
                    Histogram tenantAll = new Histogram(3);
                    iv.perKind().forEach((kind, h) -> {
                        if (h.getTotalCount() > 0) {
                            tenantAll.add(h);
                            merged.computeIfAbsent(kind, x -> new Histogram(3)).add(h);
                        }
                    });
                    acc[i].latency.add(tenantAll);
                    acc[i].completed += tenantAll.getTotalCount();
                    acc[i].rejected += iv.rejected();
                    acc[i].errors += iv.errors();
                    rej += iv.rejected();
                    err += iv.errors();
                    t.tenantP99
                            .get(tenants.get(i))
                            .add(tenantAll.getTotalCount() == 0 ? null : tenantAll.getValueAtPercentile(99));
                }
                long backlog = 0, backlogMax = 0;
                if (current != null) {
                    for (AsyncOpenLoopDriver d : current) {
                        backlog += d.backlog();
                        backlogMax += d.takeMaxBacklog();
                    }
                }
                maxInflight = Math.max(maxInflight, backlogMax);
                NodeSnapshot snap = latest != null ? latest : prev;
                t.recordDeferralStages(node, tenants);
                if (acc != null && snap != null) {
                    for (int i = 0; i < n; i++) {
                        LsmSnapshot ps = snap.partitions().get(tenants.get(i));
                        if (ps == null) {
                            continue;
                        }
                        int runs = ps.sortedRuns();
                        acc[i].runsSum += runs;
                        acc[i].runsSeconds++;
                        if (t.stageNow.getOrDefault(tenants.get(i), 0) > 0) {
                            acc[i].deferredRunsSum += runs;
                            acc[i].deferredSeconds++;
                        }
                    }
                }
                WindowRecorder.Interval iv = new WindowRecorder.Interval(merged, rej, err);
                Results.Window w = StackRunner.window(
                        k - 1, phase, iv, snap, prev, gaugePartition, backlog, backlogMax, cpuMeter.sample());
                t.windows.add(w);
                if (phase.measured()) {
                    t.rejected += rej;
                    t.errors += err;
                    merged.forEach((kind, h) -> {
                        t.measuredLatency
                                .computeIfAbsent(kind, x -> new Histogram(3))
                                .add(h);
                        t.measuredAll.add(h);
                    });
                }
                prev = snap;
                progress.window(k - 1, total, w);
            }
            int nextPhase = k < total ? phaseOfSecond[k] : -1;
            if (nextPhase != currentPhase) {
                if (current != null) {
                    PhaseSpec p = phases.get(currentPhase);
                    long generated = 0, dropped = 0;
                    double offered = 0;
                    for (int i = 0; i < n; i++) {
                        current[i].stop();
                        acc[i].generated = current[i].generated();
                        generated += acc[i].generated;
                        dropped += current[i].dropped();
                        offered += offeredRate(tenants.get(i), p);
                        t.tenantResults.add(tenantResult(tenants.get(i), p, acc[i], parts[i].quotaStats()));
                    }
                    t.phases.add(new Results.Phase(
                            p.name(),
                            "open",
                            "async",
                            phaseStart[currentPhase],
                            p.durationSeconds(),
                            p.measured(),
                            null,
                            p.mix().toString(),
                            p.distribution().toString(),
                            describeRates(tenants, p),
                            StackRunner.round1(offered),
                            generated,
                            0L,
                            dropped,
                            maxInflight,
                            null));
                }
                maxInflight = 0;
                current = null;
                if (nextPhase >= 0) {
                    PhaseSpec p = phases.get(nextPhase);
                    current = new AsyncOpenLoopDriver[n];
                    acc = new TenantPhase[n];
                    for (int i = 0; i < n; i++) {
                        StoreWorkload task = nextTasks[i];
                        if (spec.quotaFollowsRate() && quotaAtOpen[i].wcu() > 0) {
                            PartitionQuota q = quotaAtOpen[i];
                            parts[i].setQuota(new PartitionQuota(
                                    q.rcu(), offeredRate(tenants.get(i), p), q.overQuota(), q.maxWait(), q.burst()));
                        }
                        acc[i] = new TenantPhase();
                        acc[i].quotaAtStart = parts[i].quotaStats();
                        current[i] = new AsyncOpenLoopDriver(
                                p.name() + "-" + tenants.get(i),
                                new LoadShape.Constant(offeredRate(tenants.get(i), p)),
                                p.poisson(),
                                p.maxInflight(),
                                task,
                                recorders[i],
                                System::nanoTime,
                                scenario.seed() * 31 + nextPhase * 1009L + i);
                        all.add(current[i]);
                        current[i].start(t0 + k * SECOND, t0 + (k + p.durationSeconds()) * SECOND);
                    }
                }
                currentPhase = nextPhase;
            }
        }
        for (AsyncOpenLoopDriver d : all) {
            if (!d.await(120_000)) {
                log.warn("stack {}: requests were still in flight 120 s after the run ended", stack.name());
            }
        }
        return t;
    }

    private Results.Tenant tenantResult(String name, PhaseSpec p, TenantPhase a, QuotaStats end) {
        double s = p.durationSeconds();
        QuotaStats b = a.quotaAtStart;
        long throttled = end.throttled() - b.throttled();
        Double normally = normallyServed(a.latency, spec.sloMs(), throttled, a.generated);
        return new Results.Tenant(
                name,
                p.name(),
                StackRunner.round1(a.generated / s),
                StackRunner.round1(a.completed / s),
                StackRunner.round1((end.readUnits() - b.readUnits()) / s),
                StackRunner.round1((end.writeUnits() - b.writeUnits()) / s),
                LatencyStats.of(a.latency),
                throttled,
                a.rejected,
                a.errors,
                normally,
                a.runsSeconds == 0 ? null : StackRunner.round2((double) a.runsSum / a.runsSeconds),
                (int) a.deferredSeconds,
                a.deferredSeconds == 0 ? null : StackRunner.round2((double) a.deferredRunsSum / a.deferredSeconds));
    }

    /**
     * (requests completed within {@code sloMs} − throttled) ÷ generated, at least 0 — a lower bound, as a throttled
     * request is assumed to be among those within the SLO; null without an SLO ({@code sloMs} 0) or without requests.
     * {@code latencyUs} holds the completed requests' latencies in µs.
     */
    static Double normallyServed(Histogram latencyUs, double sloMs, long throttled, long generated) {
        if (sloMs <= 0 || generated <= 0) {
            return null;
        }
        long sloUs = Math.round(sloMs * 1000);
        long within = latencyUs.getTotalCount() == 0 ? 0 : latencyUs.getCountBetweenValues(0, sloUs);
        return StackRunner.round3(Math.max(0, within - throttled) / (double) generated);
    }

    private String describeRates(List<String> tenants, PhaseSpec p) {
        StringBuilder sb = new StringBuilder("per tenant: ");
        for (int i = 0; i < tenants.size(); i++) {
            sb.append(i == 0 ? "" : ", ")
                    .append(tenants.get(i))
                    .append(" constant(")
                    .append(Math.round(offeredRate(tenants.get(i), p)))
                    .append("/s)");
        }
        return sb.toString();
    }
}
