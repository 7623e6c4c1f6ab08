package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.sluice.bench.SluiceCli;
import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.scenario.Scenarios;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@code smoke} scenario end to end — `sluice bench --scenario smoke`, real engine, one child JVM per stack —
 * and checks results.json against its JSON Schema and for sane values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmokeBenchTest {
    private Path out;
    private int exitCode;
    private String console;
    private JsonNode json;
    private Results.Run run;

    @BeforeAll
    void runSmoke(@TempDir Path tmp) throws Exception {
        out = tmp.resolve("out");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        // No --no-progress: the console is not a terminal here, so the runner must fall back to plain status lines.
        try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            exitCode = SluiceCli.execute(ps, System.err, "bench", "--scenario", "smoke", "--out", out.toString());
        }
        console = buf.toString(StandardCharsets.UTF_8);
        System.out.println(console);
        assertThat(exitCode)
                .as("exit code; console:\n%s\nlogs: %s", console, logs())
                .isZero();
        json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        run = Results.mapper().readValue(out.resolve("results.json").toFile(), Results.Run.class);
    }

    private String logs() {
        try (var s = Files.walk(out.resolve("logs"))) {
            StringBuilder sb = new StringBuilder();
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                sb.append("\n==> ").append(p).append('\n').append(Files.readString(p));
            }
            return sb.toString();
        } catch (Exception e) {
            return "(no logs: " + e + ")";
        }
    }

    @Test
    void resultsMatchTheSchema() throws Exception {
        JsonSchemaFactory f = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
        try (InputStream in = getClass().getResourceAsStream("/results.schema.json")) {
            JsonSchema schema = f.getSchema(in);
            Set<ValidationMessage> errors = schema.validate(json);
            assertThat(errors).as("schema violations").isEmpty();
        }
    }

    @Test
    void oneWindowPerSecondOfRun() {
        int seconds = Scenarios.load("smoke").totalSeconds();
        assertThat(run.scenario().durationSeconds()).isEqualTo(seconds);
        for (Results.Stack s : run.stacks()) {
            assertThat(s.windows()).hasSize(seconds);
            for (int i = 0; i < seconds; i++) {
                assertThat(s.windows().get(i).second()).isEqualTo(i);
            }
            assertThat(s.metrics().measuredSeconds()).isEqualTo(seconds);
            assertThat(s.windows().stream().mapToLong(Results.Window::ops).sum())
                    .isEqualTo(s.metrics().operations());
            assertThat(s.phases()).extracting(Results.Phase::name).containsExactly("open", "closed", "open-async");
            assertThat(s.windows().subList(0, 3)).allMatch(w -> w.phase().equals("open") && w.backlog() != null);
            assertThat(s.windows().subList(3, 6)).allMatch(w -> w.phase().equals("closed") && w.backlog() == null);
            assertThat(s.windows().subList(6, 8)).allMatch(w -> w.phase().equals("open-async") && w.backlog() != null);
        }
    }

    @Test
    void saneValues() {
        assertThat(run.stacks()).extracting(Results.Stack::name).containsExactly("rocksdb", "rocksdb-autotuned");
        assertThat(run.baseline()).isEqualTo("rocksdb");
        assertThat(run.stacks().get(0).baseline()).isTrue();
        assertThat(run.stacks().get(1).baseline()).isFalse();
        for (Results.Stack s : run.stacks()) {
            Results.Metrics m = s.metrics();
            assertThat(m.meanThroughput()).as(s.name()).isPositive();
            assertThat(m.errors()).as(s.name()).isZero();
            assertThat(m.tailThroughputP99()).isLessThanOrEqualTo(m.tailThroughputP95());
            assertThat(m.tailThroughputP95()).isLessThanOrEqualTo(m.maxWindowThroughput());
            assertThat(m.minWindowThroughput()).isLessThanOrEqualTo(m.tailThroughputP99());
            assertThat(m.meanThroughput()).isBetween(m.minWindowThroughput(), m.maxWindowThroughput());
            long[] p99s = s.windows().stream()
                    .filter(Results.Window::measured)
                    .mapToLong(Results.Window::p99Us)
                    .toArray();
            assertThat(m.maxWindowP99Us()).isEqualTo(Arrays.stream(p99s).max().getAsLong());
            assertThat(m.meanWindowP99Us()).isBetween(Arrays.stream(p99s).min().getAsLong(), m.maxWindowP99Us());
            assertThat(m.latency()).containsKeys("all", "insert", "update", "read", "scan", "rmw");
            for (Map.Entry<String, LatencyStats> e : m.latency().entrySet()) {
                LatencyStats l = e.getValue();
                assertThat(l.count()).as(e.getKey()).isPositive();
                assertThat(l.p50Us()).as(e.getKey()).isPositive().isLessThanOrEqualTo(l.p99Us());
                assertThat(l.p99Us()).as(e.getKey()).isLessThanOrEqualTo(l.p999Us());
                assertThat(l.p999Us()).as(e.getKey()).isLessThanOrEqualTo(l.maxUs());
            }
            long perKind = m.latency().entrySet().stream()
                    .filter(e -> !e.getKey().equals("all"))
                    .mapToLong(e -> e.getValue().count())
                    .sum();
            assertThat(perKind).isEqualTo(m.latency().get("all").count()).isEqualTo(m.operations());
            for (Results.Window w : s.windows()) {
                assertThat(w.ops()).as("window %d of %s", w.second(), s.name()).isPositive();
                assertThat(w.p50Us()).isLessThanOrEqualTo(w.p99Us());
                assertThat(w.p99Us()).isLessThanOrEqualTo(w.maxUs());
                assertThat(w.l0Files()).isNotNull().isNotNegative();
                assertThat(w.memtableWatermark()).isNotNull().isBetween(0.0, 2.0);
                assertThat(w.levelBytes()).isNotEmpty().hasSameSizeAs(w.levelTargetBytes());
                assertThat(w.levelBytes().get(0) == 0)
                        .as("L0 holds bytes exactly when it holds files")
                        .isEqualTo(w.l0Files() == 0);
                assertThat(w.levelBytes().stream().mapToLong(Long::longValue).sum())
                        .as("preloaded data is in the tree")
                        .isPositive();
                assertThat(w.rssBytes()).isPositive();
                // Where the CPU went (Linux: the JVM's process CPU time and /proc/stat).
                assertThat(w.cpu()).as("cpu of window %d", w.second()).isNotNull();
                assertThat(w.cpu().processCores())
                        .isNotNull()
                        .isBetween(0.0, Runtime.getRuntime().availableProcessors() + 0.5);
                assertThat(w.cpu().machineBusy()).isNotNull().isBetween(0.0, 1.0);
                assertThat(w.cpu().steal()).isNotNull().isBetween(0.0, 1.0);
                assertThat(w.cpu().ioWait()).isNotNull().isBetween(0.0, 1.0);
                if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/pressure/io"))) {
                    assertThat(w.cpu().ioStalled()).isNotNull().isBetween(0.0, 1.0);
                }
            }
            // A store serving thousands of requests a second uses CPU in most of its windows.
            assertThat(s.windows().stream().filter(w -> w.cpu().processCores() > 0.05))
                    .as("windows with the process on the CPU")
                    .hasSizeGreaterThan(s.windows().size() / 2);
            // Open loop at 2000/s for 3 s: about 6000 arrivals, all either run or counted.
            Results.Phase open = s.phases().get(0);
            assertThat(open.offeredMeanRate()).isEqualTo(2000.0);
            assertThat(open.generated()).isBetween(5400L, 6001L);
            assertThat(open.dispatch()).isEqualTo("sync");
            assertThat(open.threads()).isEqualTo(4);
            assertThat(s.phases().get(1).dispatch()).isNull();
            // The async open loop: 2000/s for 2 s, handed to the store at once (no worker threads, no client queue).
            Results.Phase async = s.phases().get(2);
            assertThat(async.dispatch()).isEqualTo("async");
            assertThat(async.threads()).isNull();
            assertThat(async.generated()).isBetween(3600L, 4001L);
            assertThat(async.dropped()).isZero();
            assertThat(async.unstartedAtEnd()).isZero();
            assertThat(async.maxBacklog()).isPositive().isLessThan(async.generated());
            // No stack of the smoke scenario has an admission gate.
            assertThat(s.windows()).allMatch(w -> w.admissionQueued() == null && w.admissionRate() == null);
            assertThat(m.peakAdmissionQueued()).isNull();
            assertThat(s.preload().keys()).isEqualTo(20_000);
            assertThat(m.writeAmplification()).isNotNull().isGreaterThan(0.5);
            assertThat(m.peakRssBytes()).isGreaterThan(50L << 20);
            // Input accepted: the measured writes' keys and values (16 B + 1024 B each), give or take the snapshot
            // interval at both ends of the measured phases.
            long writes = java.util.stream.Stream.of("insert", "update", "rmw")
                    .map(k -> m.latency().get(k))
                    .filter(java.util.Objects::nonNull)
                    .mapToLong(dev.sluice.bench.metrics.LatencyStats::count)
                    .sum();
            assertThat(writes).isPositive();
            assertThat(m.inputBytes()).isBetween(writes * 1040 / 2, writes * 1040 * 2);
            // CPU time over the measured windows: something, and no more than every core for every measured second.
            assertThat(m.cpuSeconds())
                    .isPositive()
                    .isLessThanOrEqualTo(
                            m.measuredSeconds() * Runtime.getRuntime().availableProcessors() * 1.2);
            assertThat(s.environment().rssMode()).isEqualTo("child-jvm");
            if (s.environment().deviceEmulated()) {
                assertThat(s.environment().envOptions()).containsEntry("device.iops", "50000");
            } else {
                assertThat(s.environment().note()).isNotBlank();
            }
        }
        Results.Stack other = run.stacks().get(1);
        assertThat(other.profile()).isEqualTo("rocksdb-autotuned-ratelimiter");
        assertThat(other.sysprops()).containsKey("sluice.autotuned.rate.bytes.per.sec");
        assertThat(other.ratioToBaseline().get("meanThroughput")).isPositive();
        assertThat(run.stacks().get(0).ratioToBaseline().get("meanThroughput")).isEqualTo(1.0);
    }

    @Test
    void summaryChartsAndConsole() throws Exception {
        String summary = Files.readString(out.resolve("summary.md"));
        assertThat(summary)
                .contains("| Metric | rocksdb (baseline) | rocksdb-autotuned |")
                .contains("Tail throughput P99")
                .contains("(1.00×)");
        assertThat(console).contains("Tail throughput P99").contains("results: ");
        // Not a terminal: plain status lines (phase, elapsed, ops/s), no progress-bar frames.
        assertThat(console)
                .doesNotContain("\r")
                .contains("[1/2] rocksdb preload")
                .containsPattern(
                        "\\[2/2\\] rocksdb-autotuned phase open-async +8/8 s +elapsed \\d+:\\d\\d +[\\d,]+ ops/s");
        List<String> expected = List.of(
                "throughput.png",
                "p99.png",
                "fig12-rocksdb.png",
                "fig12-rocksdb-autotuned.png",
                "lsm-rocksdb.png",
                "pending-compaction.png");
        assertThat(run.charts()).containsAll(expected);
        for (String c : run.charts()) {
            byte[] head = Files.readAllBytes(out.resolve(c));
            assertThat(head.length).as(c).isGreaterThan(1000);
            assertThat(head[1]).as(c + " is a PNG").isEqualTo((byte) 'P');
        }
        assertThat(out.resolve("data")).doesNotExist();
        assertThat(out.resolve("smoke.scenario")).exists();
    }

    @Test
    void chartsRedrawsFromResultsJsonAndRefusesAnOutUnderAFile() throws Exception {
        Path results = out.resolve("results.json");
        Path redrawn = out.resolveSibling("redrawn");
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try (PrintStream po = new PrintStream(o, true, StandardCharsets.UTF_8);
                PrintStream pe = new PrintStream(e, true, StandardCharsets.UTF_8)) {
            assertThat(SluiceCli.execute(po, pe, "charts", results.toString(), "--out", redrawn.toString()))
                    .as("stderr: %s", e)
                    .isZero();
            assertThat(redrawn.resolve("throughput.png")).isRegularFile();
            assertThat(redrawn.resolve("summary.md")).doesNotExist();
            assertThat(SluiceCli.execute(
                            po, pe, "charts", results.toString(), "--out", redrawn.toString(), "--summary"))
                    .as("stderr: %s", e)
                    .isZero();
            assertThat(Files.readString(redrawn.resolve("summary.md")))
                    .isEqualTo(Files.readString(out.resolve("summary.md")));
            Path underAFile = results.resolve("x");
            assertThat(SluiceCli.execute(po, pe, "charts", results.toString(), "--out", underAFile.toString()))
                    .isEqualTo(2);
        }
        assertThat(e.toString(StandardCharsets.UTF_8).strip())
                .startsWith("sluice charts: --out ")
                .contains("is a file, not a directory")
                .doesNotContain("\n");
    }
}
