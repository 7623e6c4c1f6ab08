package dev.sluice.bench.runner;

import dev.sluice.bench.report.Charts;
import dev.sluice.bench.report.Summary;
import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.Scenarios;
import dev.sluice.bench.scenario.StackSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code sluice bench} invocation: load and check the scenario, run each stack (child JVM by default), then write
 * results.json, summary.md and the charts, and print the table.
 */
public final class BenchRun {
    private static final Logger log = LoggerFactory.getLogger(BenchRun.class);

    private BenchRun() {}

    /** The command line, parsed. */
    public record Request(
            String scenario,
            Path out,
            Integer duration,
            List<String> stacks,
            Path dataDir,
            boolean keepData,
            boolean inProcess,
            String heap,
            boolean noDevice,
            boolean noProgress) {}

    /** Returns the process exit code. */
    public static int run(Request req, PrintStream console, PrintStream err) throws IOException, InterruptedException {
        Scenario sc = Scenarios.load(req.scenario());
        if (req.duration() != null) {
            if (req.duration() < 1) {
                throw new IllegalArgumentException("--duration must be at least 1 second");
            }
            sc = sc.withDuration(req.duration());
        }
        if (req.stacks() != null && !req.stacks().isEmpty()) {
            sc = sc.withStacks(new LinkedHashSet<>(req.stacks()));
        }
        Scenarios.checkNames(sc);

        boolean wantsEnv = !sc.device().isEmpty()
                || sc.stacks().stream()
                        .anyMatch(s -> s.options().keySet().stream().anyMatch(k -> k.startsWith("env.")));
        Optional<String> unavailable = Scenarios.priorityEnvUnavailable();
        boolean device = wantsEnv && !req.noDevice() && unavailable.isEmpty();
        String note = "";
        if (wantsEnv && !device) {
            note = req.noDevice()
                    ? "device emulation switched off with --no-device"
                    : "device emulation unavailable: " + unavailable.orElse("?");
            err.println("WARNING: the scenario's device model / Env options are NOT in effect (" + note
                    + "); stacks run on this machine's disk.");
        }

        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path out = req.out() != null ? req.out() : Path.of("bench-out", sc.name() + "-" + stamp);
        Files.createDirectories(out);
        Path dataRoot = req.dataDir() != null ? req.dataDir() : out.resolve("data");
        Path scenarioCopy = out.resolve(sc.name() + ".scenario");
        Files.writeString(scenarioCopy, sc.text(), StandardCharsets.UTF_8);
        String command = commandLine(req);
        String startedAt = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();

        console.printf(
                Locale.ROOT,
                "sluice bench: scenario %s (%s), %d stack(s) × %d s of phases, output %s%n",
                sc.name(),
                sc.source(),
                sc.stacks().size(),
                sc.totalSeconds(),
                out.toAbsolutePath());

        List<Results.Stack> results = new ArrayList<>();
        for (int i = 0; i < sc.stacks().size(); i++) {
            StackSpec stack = sc.stacks().get(i);
            Path data = dataRoot.resolve((i + 1) + "-" + stack.name());
            deleteTree(data);
            Files.createDirectories(data);
            String task =
                    String.format(Locale.ROOT, "[%d/%d] %s", i + 1, sc.stacks().size(), stack.name());
            Results.Stack r;
            try (ProgressView view = new ProgressView(task, sc.totalSeconds(), req.noProgress(), console)) {
                if (req.inProcess()) {
                    r = inProcess(sc, stack, data, device, note, view);
                } else {
                    Path resultFile = out.resolve("stack-" + (i + 1) + "-" + stack.name() + ".json");
                    r = ChildStack.run(
                            scenarioCopy,
                            stack,
                            data,
                            resultFile,
                            req.duration(),
                            device,
                            note,
                            req.heap(),
                            out.resolve("logs").resolve((i + 1) + "-" + stack.name() + ".log"),
                            view);
                    Files.deleteIfExists(resultFile);
                }
            } catch (RuntimeException e) {
                err.println("error: stack " + stack.name() + " failed: " + e.getMessage());
                log.debug("stack failure", e);
                return 1;
            } finally {
                if (!req.keepData()) {
                    deleteTree(data);
                }
            }
            results.add(r);
            console.printf(
                    Locale.ROOT,
                    "  %s: mean %,.0f ops/s, P99 tail %,.0f ops/s, p99 %.2f ms, %d zero-throughput" + " s%n",
                    stack.name(),
                    r.metrics().meanThroughput(),
                    r.metrics().tailThroughputP99(),
                    r.metrics().latency().get("all").p99Us() / 1000.0,
                    r.metrics().zeroThroughputWindows());
        }
        if (!req.keepData() && req.dataDir() == null) {
            deleteIfEmpty(dataRoot);
        }

        List<Results.Stack> withRatios = Summary.withRatios(results);
        List<String> charts = Charts.write(out, withRatios);
        Results.Run run = new Results.Run(
                Results.SCHEMA_VERSION,
                "sluice-bench",
                new Results.ScenarioInfo(
                        sc.name(),
                        sc.description(),
                        sc.source(),
                        sc.totalSeconds(),
                        sc.seed(),
                        sc.preload().keys(),
                        sc.preload().keyBytes(),
                        sc.preload().valueBytes(),
                        sc.device(),
                        sc.text()),
                command,
                startedAt,
                machine(),
                sc.baseline().name(),
                withRatios,
                charts);
        Results.mapper().writeValue(out.resolve("results.json").toFile(), run);
        Files.writeString(out.resolve("summary.md"), Summary.markdown(run), StandardCharsets.UTF_8);
        console.println();
        console.println(Summary.consoleTable(withRatios));
        console.println("results: " + out.resolve("results.json").toAbsolutePath());
        console.println("summary: " + out.resolve("summary.md").toAbsolutePath());
        console.println("charts:  " + String.join(", ", charts));
        return 0;
    }

    private static Results.Stack inProcess(
            Scenario sc, StackSpec stack, Path data, boolean device, String note, StackRunner.Progress progress)
            throws InterruptedException {
        Map<String, String> saved = new HashMap<>();
        stack.sysprops().forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
        try {
            return new StackRunner(sc, stack, data, new StackRunner.Options(device, note, "in-process"), progress)
                    .run();
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    static String commandLine(Request r) {
        StringBuilder sb = new StringBuilder("sluice bench --scenario ").append(r.scenario());
        if (r.out() != null) {
            sb.append(" --out ").append(r.out());
        }
        if (r.duration() != null) {
            sb.append(" --duration ").append(r.duration());
        }
        if (r.stacks() != null && !r.stacks().isEmpty()) {
            sb.append(" --stacks ").append(String.join(",", r.stacks()));
        }
        if (r.dataDir() != null) {
            sb.append(" --data-dir ").append(r.dataDir());
        }
        if (r.keepData()) {
            sb.append(" --keep-data");
        }
        if (r.inProcess()) {
            sb.append(" --in-process");
        }
        if (!"1g".equals(r.heap())) {
            sb.append(" --heap ").append(r.heap());
        }
        if (r.noDevice()) {
            sb.append(" --no-device");
        }
        return sb.toString();
    }

    static Results.Machine machine() {
        long mem = -1;
        String cpu = "unknown CPU";
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal:")) {
                    mem = Long.parseLong(l.replaceAll("\\D+", "")) * 1024;
                }
            }
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("cannot read /proc", e);
        }
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
        return new Results.Machine(Runtime.getRuntime().availableProcessors(), mem, os, jvm, cpu);
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    private static void deleteIfEmpty(Path p) {
        try (Stream<Path> s = Files.list(p)) {
            if (s.findAny().isEmpty()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            // leave it
        }
    }

    /**
     * The console progress of one stack: a bar over the preload (keys), then a bar over the phases (seconds) with the
     * last window's throughput, p99, L0 files and backlog; with --no-progress a status line every 10 s instead.
     */
    static final class ProgressView implements StackRunner.Progress, AutoCloseable {
        private final PrintStream console;
        private final String task;
        private final int seconds;
        private final boolean plain;
        private ProgressBar preloadBar;
        private ProgressBar bar;
        private long lastLine;

        ProgressView(String task, int seconds, boolean plain, PrintStream console) {
            this.task = task;
            this.console = console;
            this.seconds = seconds;
            this.plain = plain;
        }

        private ProgressBar newBar(String name, long max, String unit) {
            return new ProgressBarBuilder()
                    .setTaskName(name)
                    .setInitialMax(max)
                    .setUnit(unit, 1)
                    .setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(500)
                    .setConsumer(new ConsoleProgressBarConsumer(console, 150))
                    .build();
        }

        @Override
        public void preload(long done, long total) {
            if (plain) {
                if (System.nanoTime() - lastLine > 10e9 || done == total) {
                    lastLine = System.nanoTime();
                    console.println(String.format(Locale.ROOT, "%s preload %,d/%,d keys", task, done, total));
                }
                return;
            }
            if (preloadBar == null) {
                preloadBar = newBar(task + " preload", total, " keys");
            }
            preloadBar.stepTo(done);
        }

        @Override
        public void settling(double secs) {
            if (preloadBar != null) {
                preloadBar.setExtraMessage(String.format(Locale.ROOT, "waiting for compactions %.0f s", secs));
            }
        }

        @Override
        public void window(int second, int total, Results.Window w) {
            String msg = String.format(
                    Locale.ROOT,
                    "%,d ops/s  p99 %s  L0 %s%s",
                    w.ops(),
                    w.p99Us() == null ? "-" : String.format(Locale.ROOT, "%.2f ms", w.p99Us() / 1000.0),
                    w.l0Files() == null ? "-" : w.l0Files(),
                    w.backlog() == null ? "" : String.format(Locale.ROOT, "  backlog %,d", w.backlog()));
            if (plain) {
                if ((second + 1) % 10 == 0 || second + 1 == total) {
                    console.println(task + " " + (second + 1) + "/" + total + " s  " + msg);
                }
                return;
            }
            if (preloadBar != null) {
                preloadBar.close();
                preloadBar = null;
            }
            if (bar == null) {
                bar = newBar(task, seconds, " s");
            }
            bar.stepTo(second + 1);
            bar.setExtraMessage(msg);
        }

        @Override
        public void close() {
            if (preloadBar != null) {
                preloadBar.close();
            }
            if (bar != null) {
                bar.close();
            }
        }
    }
}
