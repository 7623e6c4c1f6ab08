package dev.sluice.bench.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.metrics.TailThroughput;
import dev.sluice.bench.report.Charts;
import dev.sluice.bench.report.Summary;
import dev.sluice.bench.runner.Results;
import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sluice cassandra --scenario cassandra-flood}: runs a Cassandra scenario on a real Cassandra 5.0.9 node per
 * stack (a fresh node each, same settings), drives it through the Java driver, reads every written row back, and
 * writes the same {@code results.json}, charts and summary as {@code sluice bench} (docs/benchmarks.md "Cassandra").
 */
@Command(
        name = "sluice cassandra",
        mixinStandardHelpOptions = true,
        version = dev.sluice.bench.SluiceCli.VERSION,
        description = "Run a Cassandra scenario on a real Cassandra 5.0.9 node: UCS vs SluiceCompactionStrategy.",
        footer = {"", "Exit codes: 0 done, every row read back; 1 the run failed or rows were missing; 2 bad arguments."
        })
public final class CassandraBench implements Callable<Integer> {
    static final String VIEW = "dev.sluice.cassandra:type=SluiceControl";
    static final String KS = "flood";

    @Option(names = "--scenario", defaultValue = "cassandra-flood", description = "Built-in name or file path.")
    String scenario;

    @Option(names = "--duration", description = "Per stack, e.g. 30s, 10m (default: the scenario's).")
    String duration;

    @Option(names = "--stacks", description = "Comma-separated subset of the scenario's stacks (default: all).")
    String stacks;

    @Option(
            names = "--out",
            description = "Output directory, absent or empty (default: bench-out/<scenario>-<yyyyMMdd-HHmmss>).")
    Path out;

    @Option(
            names = "--plugin-jar",
            description = "The plugin jar (default: cassandra-plugin/target/sluice-cassandra.jar).")
    Path pluginJar;

    @Option(
            names = "--node-classpath",
            description =
                    "File with Cassandra's runtime classpath (default: cassandra-plugin/target/cassandra-node.classpath).")
    Path nodeClasspath;

    @Option(names = "--keep-data", description = "Keep the nodes' data directories.")
    boolean keepData;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CassandraBench()).execute(args));
    }

    static int parseDuration(String s) {
        var m = java.util.regex.Pattern.compile("(\\d+)\\s*([smh]?)").matcher(s.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("--duration '" + s + "': expected e.g. 30s, 10m, 1h");
        }
        int n = Integer.parseInt(m.group(1));
        int secs = switch (m.group(2)) {
            case "m" -> n * 60;
            case "h" -> n * 3600;
            default -> n;
        };
        if (secs < 5) {
            throw new IllegalArgumentException("--duration '" + s + "': at least 5 s");
        }
        return secs;
    }

    @Override
    public Integer call() throws Exception {
        CassandraScenario sc;
        int seconds;
        List<CassandraScenario.Stack> chosen = new ArrayList<>();
        List<String> cp = new ArrayList<>();
        try {
            sc = CassandraScenario.load(scenario);
            if (out == null) {
                out = Path.of(
                        "bench-out",
                        sc.name() + "-"
                                + java.time.LocalDateTime.now()
                                        .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            }
            dev.sluice.bench.runner.BenchRun.checkDirectory("--out", out);
            dev.sluice.bench.runner.BenchRun.checkFreshOutput("--out", out);
            seconds = duration == null ? sc.durationSeconds() : parseDuration(duration);
            for (CassandraScenario.Stack s : sc.stacks()) {
                if (stacks == null
                        || List.of(stacks.split(",")).stream().map(String::trim).anyMatch(s.name()::equals)) {
                    chosen.add(s);
                }
            }
            if (chosen.isEmpty()) {
                throw new IllegalArgumentException("--stacks " + stacks + ": none of the scenario's stacks "
                        + sc.stacks().stream()
                                .map(CassandraScenario.Stack::name)
                                .toList());
            }
            String root = System.getProperty("sluice.root", ".");
            Path jar = pluginJar != null ? pluginJar : Path.of(root, "cassandra-plugin/target/sluice-cassandra.jar");
            Path ncp = nodeClasspath != null
                    ? nodeClasspath
                    : Path.of(root, "cassandra-plugin/target/cassandra-node.classpath");
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("no plugin jar at " + jar
                        + " (build cassandra-plugin: ./mvnw package" + " -pl cassandra-plugin -am -DskipTests)");
            }
            if (!Files.isRegularFile(ncp)) {
                throw new IllegalArgumentException(
                        "no Cassandra classpath file at " + ncp + " (written by the" + " cassandra-plugin build)");
            }
            cp.add(jar.toAbsolutePath().toString());
            for (String e : Files.readString(ncp).strip().split(File.pathSeparator)) {
                if (!e.isBlank()) {
                    cp.add(e);
                }
            }
        } catch (IllegalArgumentException e) {
            System.err.println("sluice cassandra: " + e.getMessage());
            return 2;
        }
        Files.createDirectories(out);
        String startedAt = Instant.now().toString();
        List<Results.Stack> results = new ArrayList<>();
        long missingTotal = 0;
        for (CassandraScenario.Stack st : chosen) {
            System.out.printf(
                    "== stack %s: %s (%d s, the first %d s warm-up)%n",
                    st.name(), st.description(), seconds, sc.warmupFor(seconds));
            StackResult r = runStack(sc, st, seconds, cp, results.isEmpty());
            results.add(r.stack());
            missingTotal += r.missing();
        }
        results = Summary.withRatios(results);
        Results.Run run0 = new Results.Run(
                Results.SCHEMA_VERSION,
                "sluice-cassandra",
                new Results.ScenarioInfo(
                        sc.name(),
                        sc.description(),
                        sc.source(),
                        seconds,
                        sc.seed(),
                        0,
                        8,
                        sc.valueBytes(),
                        Map.of(),
                        sc.text()),
                "./sluice cassandra --scenario " + scenario + (duration == null ? "" : " --duration " + duration)
                        + (stacks == null ? "" : " --stacks " + stacks) + " --out " + out,
                startedAt,
                machine(),
                results.get(0).name(),
                results,
                List.of(),
                null);
        List<String> charts = Charts.write(out, results);
        Results.Run run = new Results.Run(
                run0.schemaVersion(),
                run0.tool(),
                run0.scenario(),
                run0.command(),
                run0.startedAt(),
                run0.machine(),
                run0.baseline(),
                run0.stacks(),
                charts,
                null);
        Results.mapper().writeValue(out.resolve("results.json").toFile(), run);
        Files.writeString(out.resolve("summary.md"), Summary.markdown(run));
        System.out.println(Summary.consoleTable(results));
        System.out.println("results: " + out.resolve("results.json"));
        if (missingTotal > 0) {
            System.err.println("sluice cassandra: " + missingTotal + " written rows were not read back");
            return 1;
        }
        return 0;
    }

    record StackResult(Results.Stack stack, long missing) {}

    private StackResult runStack(
            CassandraScenario sc, CassandraScenario.Stack st, int seconds, List<String> cp, boolean baseline)
            throws Exception {
        Path dir = out.resolve(st.name());
        if (Files.exists(dir.resolve("data"))) {
            deleteTree(dir);
        }
        Map<String, String> sys = new LinkedHashMap<>(st.sysprops());
        sys.putIfAbsent("sluice.controls", ""); // the plugin is loaded for its gauges only, unless the stack says so
        boolean sluice = st.compaction().contains("SluiceCompactionStrategy");
        long wallStart = System.nanoTime();
        try (CassandraNodeProcess node = CassandraNodeProcess.start(dir, cp, sc.yaml(), sc.heap(), sys);
                CqlSession cql = session(node)) {
            cql.execute("CREATE KEYSPACE " + KS
                    + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
            if (sc.jitWarmupSeconds() > 0) {
                jitWarmup(cql, sc);
            }
            cql.execute("CREATE TABLE " + KS + ".t (k bigint PRIMARY KEY, v blob) WITH compaction = {" + st.compaction()
                    + "}" + sc.tableOptionsClause());
            if (!sluice) {
                // loads the plugin (no controllers: sluice.controls is empty) so that both stacks are read by the same
                // sensors (tableGauges); this empty table gets no requests
                cql.execute("CREATE TABLE " + KS + ".probe (k int PRIMARY KEY) WITH compaction = {'class':"
                        + " 'dev.sluice.cassandra.SluiceCompactionStrategy'}");
            }
            Load load = new Load(cql, sc, node, sluice, sc.warmupFor(seconds));
            List<Results.Phase> phases = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < sc.phases().size(); i++) {
                CassandraScenario.Phase ph = sc.phases().get(i);
                int len = i == sc.phases().size() - 1
                        ? seconds - start
                        : (int) Math.max(1, Math.round(seconds * ph.fraction()));
                phases.add(new Results.Phase(
                        ph.name(),
                        "closed",
                        null,
                        start,
                        len,
                        true,
                        ph.concurrency(),
                        String.format("read=%.2f,insert=%.2f", ph.readFraction(), 1 - ph.readFraction()),
                        "uniform",
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null));
                load.run(ph, len);
                start += len;
            }
            load.stopSampling();
            load.awaitInFlight();
            long missing = load.readBack();
            Map<String, Long> events = new TreeMap<>();
            if (sluice) {
                for (String e : (String[]) node.attribute(VIEW, "RecentEvents")) {
                    for (String o : List.of("APPLIED", "FAILED", "SUPERSEDED")) {
                        if (e.contains(" " + o + " ")) {
                            events.merge(o, 1L, Long::sum);
                        }
                    }
                }
            }
            Results.Metrics metrics = load.metrics();
            String note = "Cassandra 5.0.9 node (child JVM, " + sc.heap() + " heap); read back "
                    + load.written.cardinality() + " written rows: "
                    + (missing == 0 ? "all present" : missing + " MISSING");
            System.out.println("   " + note);
            Results.Stack stack = new Results.Stack(
                    st.name(),
                    st.description(),
                    baseline,
                    "cassandra",
                    sluice ? List.of(sys.get("sluice.controls").split("\\s*,\\s*")) : List.of(),
                    Map.of("compaction", st.compaction()),
                    new TreeMap<>(sys),
                    new Results.Environment(false, false, new TreeMap<>(sc.yaml()), "child-jvm", note),
                    new Results.Preload(0, 0, 0, 0, true),
                    phases,
                    metrics,
                    Map.of(),
                    events,
                    (System.nanoTime() - wallStart) / 1e9,
                    load.windows);
            return new StackResult(stack, missing);
        } finally {
            if (!keepData) {
                for (String sub : List.of("data", "commitlog", "saved_caches", "hints", "cdc_raw")) {
                    deleteTree(dir.resolve(sub));
                }
            }
        }
    }

    /**
     * Warms the fresh node's JIT before anything is measured or controlled: the first phase's load, closed loop, for
     * {@code jit.warmup.seconds} on a table of its own with plain UCS (no Sluice strategy, so no controller starts),
     * then the table is dropped. Without it both stacks' throughput climbed through the whole measured flood (5 k to
     * 20 k ops/s over 60 s in the 2026-11-24 run) and admission's t_0, measured on a cold node, was a quarter of the
     * warm node's capacity (docs/benchmarks.md "Cassandra").
     */
    private static void jitWarmup(CqlSession cql, CassandraScenario sc) throws InterruptedException {
        CassandraScenario.Phase ph = sc.phases().get(0);
        cql.execute("CREATE TABLE " + KS + ".jit (k bigint PRIMARY KEY, v blob) WITH compaction = {'class':"
                + " 'UnifiedCompactionStrategy'}" + sc.tableOptionsClause());
        PreparedStatement w = cql.prepare("INSERT INTO " + KS + ".jit (k, v) VALUES (?, ?)");
        PreparedStatement r = cql.prepare("SELECT v FROM " + KS + ".jit WHERE k = ?");
        SplittableRandom random = new SplittableRandom(sc.seed() ^ 0x5DEECE66DL);
        Semaphore slots = new Semaphore(ph.concurrency());
        AtomicLong done = new AtomicLong();
        long start = System.nanoTime();
        long[] report = {start + TimeUnit.SECONDS.toNanos(10), 0}; // next report time, ops done at the last one
        System.out.printf(
                "   JIT warm-up: %d s of phase %s's load on %s.jit (plain UCS, not measured)%n",
                sc.jitWarmupSeconds(), ph.name(), KS);
        closedLoop(slots, start + TimeUnit.SECONDS.toNanos(sc.jitWarmupSeconds()), () -> {
            long k = random.nextInt(sc.keys());
            var f = random.nextDouble() < ph.readFraction()
                    ? cql.executeAsync(r.bind(k))
                    : cql.executeAsync(w.bind(k, Load.value((int) k, sc.valueBytes(), random.nextLong())));
            long now = System.nanoTime();
            if (now >= report[0]) {
                long d = done.get();
                System.out.printf(
                        "   JIT warm-up %3d s: %7d ops/s%n", (now - start) / 1_000_000_000L, (d - report[1]) / 10);
                report[1] = d;
                report[0] += TimeUnit.SECONDS.toNanos(10);
            }
            return f.whenComplete((rs, e) -> done.incrementAndGet());
        });
        if (!slots.tryAcquire(ph.concurrency(), 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("JIT warm-up requests still in flight 60 s after it ended");
        }
        cql.execute("DROP TABLE " + KS + ".jit");
    }

    private static CqlSession session(CassandraNodeProcess node) {
        return CqlSession.builder()
                .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                .withLocalDatacenter("datacenter1")
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(12))
                        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, Duration.ofSeconds(30))
                        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .withInt(DefaultDriverOption.CONNECTION_MAX_REQUESTS, 4096)
                        // admission's backpressure makes the server warn on every throttled request: not news here
                        .withBoolean(DefaultDriverOption.REQUEST_LOG_WARNINGS, false)
                        .build())
                .build();
    }

    /**
     * A closed loop until {@code endNanos}: whenever a slot is free, {@code next} issues one request; the slot is freed
     * when the request's stage (with whatever bookkeeping {@code next} chained onto it) completes.
     */
    static void closedLoop(Semaphore slots, long endNanos, Supplier<CompletionStage<?>> next)
            throws InterruptedException {
        while (System.nanoTime() < endNanos) {
            if (slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                next.get().whenComplete((r, e) -> slots.release());
            }
        }
    }

    /** A semaphore whose permits can be withdrawn while they are held (a closed loop's number in flight). */
    private static final class Slots extends Semaphore {
        Slots() {
            super(0);
        }

        @Override
        public void reducePermits(int reduction) {
            super.reducePermits(reduction);
        }
    }

    /** The closed-loop load, its 1-s windows and the latency histograms of the measured windows. */
    static final class Load {
        static final int SCAN_RANGES = 32;
        static final int SCAN_PARALLEL = 4;

        final CqlSession cql;
        final CassandraScenario sc;
        final CassandraNodeProcess node;
        final boolean sluice;
        /** Windows up to this second are warm-up (not measured). */
        final int warmupSeconds;

        final PreparedStatement write;
        final PreparedStatement read;
        final BitSet written = new BitSet();
        final int[] recent = new int[1 << 20];
        final AtomicLong recentCount = new AtomicLong();
        final AtomicLong reads = new AtomicLong(), writes = new AtomicLong(), errors = new AtomicLong();
        final Recorder readLatency = new Recorder(3), writeLatency = new Recorder(3);
        final Histogram allMeasured = new Histogram(3),
                readMeasured = new Histogram(3),
                writeMeasured = new Histogram(3);
        final List<Results.Window> windows = new ArrayList<>();
        final SplittableRandom random;
        final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cassandra-bench-sampler");
            t.setDaemon(true);
            return t;
        });
        /**
         * The requests that may be in flight: one semaphore for every phase, so that a phase with fewer requests in
         * flight takes over as the earlier phase's requests complete, without draining them first (a drain at the
         * switch left the node idle for the slowest request's latency and made that second the run's worst).
         */
        final Slots inFlight = new Slots();

        int concurrency;
        volatile String phase = "";
        int second;
        long lastReads, lastWrites, lastErrors;
        long peakRss;

        Load(CqlSession cql, CassandraScenario sc, CassandraNodeProcess node, boolean sluice, int warmupSeconds) {
            this.cql = cql;
            this.warmupSeconds = warmupSeconds;
            this.sc = sc;
            this.node = node;
            this.sluice = sluice;
            this.write = cql.prepare("INSERT INTO " + KS + ".t (k, v) VALUES (?, ?)");
            this.read = cql.prepare("SELECT v FROM " + KS + ".t WHERE k = ?");
            this.random = new SplittableRandom(sc.seed());
            sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        }

        void run(CassandraScenario.Phase ph, int seconds) throws InterruptedException {
            phase = ph.name();
            System.out.printf(
                    "   phase %s: %d s, %d in flight, %.0f%% reads%n",
                    ph.name(), seconds, ph.concurrency(), 100 * ph.readFraction());
            if (ph.concurrency() > concurrency) {
                inFlight.release(ph.concurrency() - concurrency);
            } else {
                inFlight.reducePermits(concurrency - ph.concurrency());
            }
            concurrency = ph.concurrency();
            closedLoop(inFlight, System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds), () -> {
                long n = recentCount.get();
                boolean isRead = n > 0 && random.nextDouble() < ph.readFraction();
                long t0 = System.nanoTime();
                if (isRead) {
                    int k = recent[(int) (random.nextLong(Math.min(n, recent.length)))];
                    return cql.executeAsync(read.bind((long) k))
                            .whenComplete((r, e) -> done(e, readLatency, t0, reads));
                }
                int k = random.nextInt(sc.keys());
                return cql.executeAsync(write.bind((long) k, value(k, sc.valueBytes(), random.nextLong())))
                        .whenComplete((r, e) -> {
                            if (done(e, writeLatency, t0, writes)) {
                                synchronized (written) {
                                    written.set(k);
                                }
                                recent[(int) (recentCount.getAndIncrement() % recent.length)] = k;
                            }
                        });
            });
        }

        /** Waits for the last phase's requests in flight to complete (call after {@link #stopSampling()}). */
        void awaitInFlight() throws InterruptedException {
            if (!inFlight.tryAcquire(concurrency, 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("requests still in flight 60 s after the load ended");
            }
            inFlight.release(concurrency);
        }

        private boolean done(Throwable e, Recorder rec, long t0, AtomicLong count) {
            if (e != null) {
                errors.incrementAndGet();
                return false;
            }
            rec.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
            count.incrementAndGet();
            return true;
        }

        static ByteBuffer value(int key, int bytes, long seed) {
            byte[] v = new byte[bytes];
            new SplittableRandom(seed).nextBytes(v);
            ByteBuffer.wrap(v).putLong(0, key);
            return ByteBuffer.wrap(v);
        }

        private synchronized void sample() {
            try {
                second++;
                Histogram r = readLatency.getIntervalHistogram();
                Histogram w = writeLatency.getIntervalHistogram();
                Histogram all = new Histogram(3);
                all.add(r);
                all.add(w);
                long rd = reads.get(), wr = writes.get(), er = errors.get();
                long dr = rd - lastReads, dw = wr - lastWrites, de = er - lastErrors;
                lastReads = rd;
                lastWrites = wr;
                lastErrors = er;
                boolean measured = second > warmupSeconds;
                if (measured) {
                    allMeasured.add(all);
                    readMeasured.add(r);
                    writeMeasured.add(w);
                }
                long[] g = (long[]) node.invoke(VIEW, "tableGauges", new Object[] {KS, "t"}, new String[] {
                    String.class.getName(), String.class.getName()
                });
                Double admission = null;
                if (sluice) {
                    double a = (Double) node.attribute(VIEW, "AdmissionRate");
                    admission = a < 0 ? null : a;
                }
                Long rss = node.rssBytes();
                if (rss != null) {
                    peakRss = Math.max(peakRss, rss);
                }
                Map<String, Long> byKind = new LinkedHashMap<>();
                byKind.put("read", dr);
                byKind.put("insert", dw);
                windows.add(new Results.Window(
                        second,
                        phase,
                        measured,
                        dr + dw,
                        byKind,
                        0,
                        de,
                        all.getTotalCount() == 0 ? null : all.getValueAtPercentile(50),
                        all.getTotalCount() == 0 ? null : all.getValueAtPercentile(99),
                        all.getTotalCount() == 0 ? null : all.getMaxValue(),
                        null,
                        null,
                        g[4] <= 0 ? null : (double) g[3] / g[4],
                        null,
                        (int) g[0],
                        (int) g[5],
                        g[1],
                        null,
                        null,
                        null,
                        null,
                        (int) g[5],
                        (int) g[2],
                        admission,
                        null,
                        Map.of(),
                        rss,
                        null,
                        null,
                        null,
                        null));
                if (second % 10 == 0) {
                    System.out.printf(
                            "   %4d s %-6s %7d ops/s p99 %6s us sstables %3d pending %5.0f MiB%s%n",
                            second,
                            phase,
                            dr + dw,
                            all.getTotalCount() == 0 ? "-" : Long.toString(all.getValueAtPercentile(99)),
                            g[0],
                            g[1] / 1048576.0,
                            admission == null ? "" : String.format(" admission %.0f/s", admission));
                }
            } catch (Exception e) {
                System.err.println("   sampling failed at second " + second + ": " + e);
            }
        }

        void stopSampling() throws InterruptedException {
            sampler.shutdown();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
        }

        /**
         * Reads every row of the table back by a full scan (the token ring in {@link #SCAN_RANGES} ranges, {@link
         * #SCAN_PARALLEL} scanned at once, paged) and checks that every written key is there and that each row's value
         * holds its own key; returns how many written keys are missing plus how many rows hold another key's value.
         * Until 2026-11-25 the read-back was one point read per written key: ~8.5 k rows/s on a table of 400
         * sstables, 15 minutes for the rows of a 300-s flood; a scan reads the sstables in order instead.
         */
        long readBack() throws InterruptedException {
            BitSet keys;
            synchronized (written) {
                keys = (BitSet) written.clone();
            }
            int total = keys.cardinality();
            System.out.printf("   reading back %,d written rows (full scan in %d token ranges)%n", total, SCAN_RANGES);
            PreparedStatement scan = cql.prepare("SELECT k, v FROM " + KS + ".t WHERE token(k) > ? AND token(k) <= ?");
            BitSet seen = new BitSet(sc.keys());
            AtomicLong rows = new AtomicLong(), wrong = new AtomicLong();
            long start = System.nanoTime();
            ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "cassandra-bench-readback");
                t.setDaemon(true);
                return t;
            });
            progress.scheduleAtFixedRate(
                    () -> System.out.printf(
                            "     scanned %,d rows (%d s)%n", rows.get(), (System.nanoTime() - start) / 1_000_000_000L),
                    30,
                    30,
                    TimeUnit.SECONDS);
            ExecutorService pool = Executors.newFixedThreadPool(SCAN_PARALLEL);
            try {
                List<Future<?>> scans = new ArrayList<>();
                for (long[] range : tokenRanges(SCAN_RANGES)) {
                    scans.add(pool.submit(() -> {
                        BitSet mine = new BitSet();
                        for (Row row : cql.execute(
                                scan.bind(range[0], range[1]).setPageSize(5000).setTimeout(Duration.ofSeconds(60)))) {
                            long k = row.getLong("k");
                            ByteBuffer v = row.getByteBuffer("v");
                            if (k < 0
                                    || k >= sc.keys()
                                    || v == null
                                    || v.remaining() < 8
                                    || v.getLong(v.position()) != k) {
                                wrong.incrementAndGet();
                            } else {
                                mine.set((int) k);
                            }
                            rows.incrementAndGet();
                        }
                        synchronized (seen) {
                            seen.or(mine);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : scans) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("read-back scan failed: " + e.getCause(), e.getCause());
                    }
                }
            } finally {
                pool.shutdownNow();
                progress.shutdownNow();
            }
            keys.andNot(seen);
            System.out.printf(
                    "     scanned %,d rows in %d s: %,d of %,d written rows present, %,d rows with a wrong value%n",
                    rows.get(),
                    (System.nanoTime() - start) / 1_000_000_000L,
                    total - keys.cardinality(),
                    total,
                    wrong.get());
            return keys.cardinality() + wrong.get();
        }

        /** The Murmur3 token ring (Long.MIN_VALUE, Long.MAX_VALUE] cut into n ranges {@code (from, to]}. */
        static List<long[]> tokenRanges(int n) {
            List<long[]> out = new ArrayList<>();
            BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
            BigInteger span = BigInteger.valueOf(Long.MAX_VALUE).subtract(min);
            long from = Long.MIN_VALUE;
            for (int i = 1; i <= n; i++) {
                long to = i == n
                        ? Long.MAX_VALUE
                        : min.add(span.multiply(BigInteger.valueOf(i)).divide(BigInteger.valueOf(n)))
                                .longValueExact();
                out.add(new long[] {from, to});
                from = to;
            }
            return out;
        }

        Results.Metrics metrics() {
            List<Results.Window> m =
                    windows.stream().filter(Results.Window::measured).toList();
            double[] th = m.stream().mapToDouble(Results.Window::ops).toArray();
            long ops = m.stream().mapToLong(Results.Window::ops).sum();
            long errs = m.stream().mapToLong(Results.Window::errors).sum();
            List<Long> p99 =
                    m.stream().map(Results.Window::p99Us).filter(x -> x != null).toList();
            Map<String, LatencyStats> lat = new LinkedHashMap<>();
            lat.put("all", LatencyStats.of(allMeasured));
            lat.put("read", LatencyStats.of(readMeasured));
            lat.put("insert", LatencyStats.of(writeMeasured));
            return new Results.Metrics(
                    m.size(),
                    ops,
                    m.isEmpty() ? 0 : (double) ops / m.size(),
                    TailThroughput.of(th, 99),
                    TailThroughput.of(th, 95),
                    Stream.of(th)
                            .flatMapToDouble(java.util.Arrays::stream)
                            .min()
                            .orElse(0),
                    Stream.of(th)
                            .flatMapToDouble(java.util.Arrays::stream)
                            .max()
                            .orElse(0),
                    p99.stream().max(Comparator.naturalOrder()).orElse(null),
                    p99.isEmpty()
                            ? null
                            : Math.round(
                                    p99.stream().mapToLong(x -> x).average().orElse(0)),
                    0,
                    errs,
                    null,
                    (int) m.stream().filter(x -> x.ops() == 0).count(),
                    0,
                    null,
                    null,
                    peakRss,
                    lat,
                    null,
                    null,
                    null,
                    LatencyStats.of(writeMeasured),
                    null,
                    null,
                    null);
        }
    }

    private static Results.Machine machine() {
        long mem = 0;
        String cpu = "";
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal:")) {
                    mem = Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: leave them empty
        }
        return new Results.Machine(
                Runtime.getRuntime().availableProcessors(),
                mem,
                System.getProperty("os.name") + " " + System.getProperty("os.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                cpu);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
