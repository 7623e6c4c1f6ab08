package dev.sluice.bench.runner;

import dev.sluice.bench.profile.AutoTunedRateLimiterProfile;
import dev.sluice.bench.report.Charts;
import dev.sluice.bench.report.Summary;
import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.Scenarios;
import dev.sluice.bench.scenario.StackSpec;
import dev.sluice.core.ConfigException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
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

    /**
     * What a request resolves to once every input was checked: the scenario (duration and stacks applied), whether the
     * device model is in effect (and why not), and the output and data directories (not created yet).
     */
    record Plan(Scenario scenario, boolean device, String note, Path out, Path dataRoot) {}

    /** Returns the process exit code. */
    public static int run(Request req, PrintStream console, PrintStream err) throws IOException, InterruptedException {
        return run(req, console, err, plainProgress(req.noProgress(), System.console() != null));
    }

    /** The progress bar only on a terminal: elsewhere its carriage-return frames would flood the log. */
    static boolean plainProgress(boolean noProgress, boolean terminal) {
        return noProgress || !terminal;
    }

    /**
     * What a Ctrl-C (or SIGTERM) during the run should know: the store being measured and how far the run got. A probe
     * (2026-11-29) interrupted runs and found no message at all, a 350-MB store left in {@code --out} although stores
     * are deleted unless {@code --keep-data}, and a directory the next run with the same {@code --out} refused.
     */
    static final class RunState {
        volatile Path out;
        volatile Path dataRoot;
        volatile Path data;
        volatile int stacks;
        volatile int finished;
        volatile boolean done;
        /** Writes the finished stacks' results with the rest marked as not run; null before any stack finished. */
        volatile java.util.function.Supplier<String> writeFinished;
        /**
         * Guards the results files: the interrupt hook and the main thread (which sees the stack's JVM killed as a
         * failed stack) must not both write them; the hook's version wins (a verify run caught both writing).
         */
        final Object writeLock = new Object();

        boolean shuttingDown; // under writeLock
    }

    static int run(Request req, PrintStream console, PrintStream err, boolean plainProgress)
            throws IOException, InterruptedException {
        RunState state = new RunState();
        Thread onInterrupt = new Thread(() -> interrupted(req, state, err), "bench-interrupted");
        Runtime.getRuntime().addShutdownHook(onInterrupt);
        try {
            return run(req, console, err, plainProgress, state);
        } finally {
            state.done = true;
            try {
                Runtime.getRuntime().removeShutdownHook(onInterrupt);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs, and sees done
            }
        }
    }

    /** The shutdown hook's work when the run did not end: delete the store being measured and say what is left. */
    private static void interrupted(Request req, RunState state, PrintStream err) {
        if (state.done || state.out == null) {
            return;
        }
        Path data = state.data;
        String store = "";
        if (data != null) {
            if (req.keepData()) {
                store = "; the store being measured is kept in " + data;
            } else {
                // the stack's JVM is being killed by its own hook meanwhile: retry while its last files go
                for (int attempt = 0; attempt < 10 && Files.exists(data); attempt++) {
                    try {
                        deleteTree(data);
                    } catch (IOException | RuntimeException e) {
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException stop) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                }
                if (req.dataDir() == null && state.dataRoot != null) {
                    deleteIfEmpty(state.dataRoot);
                }
                store = Files.exists(data)
                        ? "; could not delete the store being measured, " + data
                        : "; the store being measured was deleted";
            }
        }
        err.println();
        java.util.function.Supplier<String> writer = state.writeFinished;
        String written = null;
        synchronized (state.writeLock) {
            state.shuttingDown = true;
            if (writer != null) {
                try { // the stacks that finished keep their results, as when a later stack fails
                    written = writer.get();
                } catch (RuntimeException e) {
                    err.println("could not write the finished stacks' results: " + e);
                }
            }
        }
        err.println("interrupted: "
                + (written != null
                        ? "results of the " + state.finished + " of " + state.stacks + " stack(s) that finished are in "
                                + written + " (the others are in failedStacks)"
                        : "no results written (" + state.finished + " of " + state.stacks + " stack(s) had finished)")
                + store + ". " + state.out + " holds "
                + (written != null ? "them, " : "")
                + "the logs and the scenario copy; remove it or pass another --out to run again.");
        err.flush();
    }

    private static int run(Request req, PrintStream console, PrintStream err, boolean plainProgress, RunState state)
            throws IOException, InterruptedException {
        Plan plan = plan(req);
        Scenario sc = plan.scenario();
        boolean device = plan.device();
        String note = plan.note();
        if (!note.isEmpty()) {
            err.println("WARNING: the scenario's device model / Env options are NOT in effect (" + note
                    + "); stacks run on this machine's disk.");
        }
        Path out = plan.out();
        Path dataRoot = plan.dataRoot();
        for (int i = 0; i < sc.stacks().size(); i++) { // before --out is created: a refusal leaves nothing behind
            checkReplaceable(dataRoot.resolve((i + 1) + "-" + sc.stacks().get(i).name()));
        }
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new BenchInputException("--out " + out + ": cannot create the output directory: " + e, e);
        }
        state.out = out;
        state.dataRoot = dataRoot;
        state.stacks = sc.stacks().size();
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
            state.data = data;
            Files.createDirectories(data);
            String task =
                    String.format(Locale.ROOT, "[%d/%d] %s", i + 1, sc.stacks().size(), stack.name());
            Results.Stack r;
            try (ProgressView view = new ProgressView(task, sc.totalSeconds(), plainProgress, console)) {
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
                String why = e.getMessage() == null ? e.toString() : e.getMessage();
                err.println("error: "
                        + (why.startsWith("stack " + stack.name())
                                ? why
                                : "stack " + stack.name() + " failed: " + why));
                log.debug("stack failure", e);
                if (!req.keepData()) {
                    deleteTree(data);
                    if (req.dataDir() == null) {
                        deleteIfEmpty(dataRoot); // no empty <out>/data left beside the logs
                    }
                }
                if (results.isEmpty()) {
                    err.println("no results written for this run"
                            + (Files.isDirectory(out.resolve("logs"))
                                    ? "; the stacks' logs are in " + out.resolve("logs")
                                    : ""));
                    return 1;
                }
                // The stacks that finished keep their results (a probe, 2026-11-29: a failure in the last of five
                // 500-s stacks threw every finished one away).
                List<Results.FailedStack> failed = new ArrayList<>();
                failed.add(new Results.FailedStack(stack.name(), why));
                for (StackSpec later : sc.stacks().subList(i + 1, sc.stacks().size())) {
                    failed.add(new Results.FailedStack(later.name(), "not run: stack " + stack.name() + " failed"));
                }
                state.data = null;
                synchronized (state.writeLock) {
                    if (state.shuttingDown) {
                        return 1; // interrupted: the stack's JVM was killed, and the hook writes the results
                    }
                    writeResults(sc, out, command, startedAt, results, failed, console);
                }
                err.println("the results above are for the " + results.size() + " stack(s) that finished; "
                        + failed.size() + " did not (failedStacks in results.json)");
                return 1;
            } finally {
                if (!req.keepData()) {
                    deleteTree(data);
                }
            }
            results.add(r);
            state.data = null;
            state.finished = results.size();
            List<Results.Stack> finishedSoFar = List.copyOf(results);
            List<StackSpec> notRun = sc.stacks().subList(i + 1, sc.stacks().size());
            state.writeFinished = notRun.isEmpty()
                    ? null // all finished: the normal path writes them
                    : () -> {
                        List<Results.FailedStack> failed = new ArrayList<>();
                        for (StackSpec later : notRun) {
                            failed.add(
                                    new Results.FailedStack(later.name(), "did not finish: the run was interrupted"));
                        }
                        try {
                            writeResults(
                                    sc,
                                    out,
                                    command,
                                    startedAt,
                                    finishedSoFar,
                                    failed,
                                    new PrintStream(java.io.OutputStream.nullOutputStream()));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        return out.resolve("results.json").toString();
                    };
            console.printf(
                    Locale.ROOT,
                    "  %s: mean %,.0f ops/s, P99 tail %,.0f ops/s, p99 %.2f ms, %d zero-throughput" + " s%n",
                    stack.name(),
                    r.metrics().meanThroughput(),
                    r.metrics().tailThroughputP99(),
                    r.metrics().latency().get("all").p99Us() / 1000.0,
                    r.metrics().zeroThroughputWindows());
            String shortfall = Summary.openLoopShortfall(r);
            if (shortfall != null) {
                console.println("  warning: " + shortfall);
            }
        }
        if (!req.keepData() && req.dataDir() == null) {
            deleteIfEmpty(dataRoot);
        }

        writeResults(sc, out, command, startedAt, results, null, console);
        return 0;
    }

    /** Writes results.json, summary.md and the charts of {@code results}, and prints the headline and table. */
    private static void writeResults(
            Scenario sc,
            Path out,
            String command,
            String startedAt,
            List<Results.Stack> results,
            List<Results.FailedStack> failed,
            PrintStream console)
            throws IOException {
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
                charts,
                failed);
        Results.mapper().writeValue(out.resolve("results.json").toFile(), run);
        Files.writeString(out.resolve("summary.md"), Summary.markdown(run), StandardCharsets.UTF_8);
        console.println();
        for (String h : Summary.headline(withRatios)) {
            console.println(h);
        }
        console.println(Summary.consoleTable(withRatios));
        console.println("results: " + out.resolve("results.json").toAbsolutePath());
        console.println("summary: " + out.resolve("summary.md").toAbsolutePath());
        console.println("charts:  " + String.join(", ", charts));
    }

    /**
     * Checks every input before anything runs or is written: the arguments ({@code --heap}, {@code --duration}, {@code
     * --stacks}, {@code --out}, {@code --data-dir}), the scenario, and for every stack the full configuration its run
     * would open the node with (profile, controllers and their {@code control.*} values, {@code env.*} and device
     * values, system properties), with {@link Sluice#validate}, which neither touches the disk nor loads native code.
     *
     * @throws BenchInputException or {@link dev.sluice.bench.scenario.ScenarioException}, with a one-line message
     */
    static Plan plan(Request req) {
        heapBytes(req.heap());
        if (req.duration() != null && req.duration() < 1) {
            throw new BenchInputException("--duration " + req.duration() + ": must be at least 1 second");
        }
        if (req.out() != null) {
            checkDirectory("--out", req.out());
            checkFreshOutput("--out", req.out());
        }
        if (req.dataDir() != null) {
            checkDirectory("--data-dir", req.dataDir());
        }
        Scenario sc = Scenarios.load(req.scenario());
        if (req.duration() != null) {
            sc = sc.withDuration(req.duration());
        }
        if (req.stacks() != null && !req.stacks().isEmpty()) {
            LinkedHashSet<String> distinct = new LinkedHashSet<>(req.stacks());
            if (distinct.size() < req.stacks().size()) {
                throw new BenchInputException("--stacks " + String.join(",", req.stacks())
                        + ": a stack is named twice (each runs once; name it once)");
            }
            sc = sc.withStacks(distinct);
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
        }

        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path out = req.out() != null ? req.out() : Path.of("bench-out", sc.name() + "-" + stamp);
        if (req.out() == null) {
            checkDirectory("--out (default)", out);
            checkFreshOutput("--out (default)", out); // two runs started in the same second
        }
        Path dataRoot = req.dataDir() != null ? req.dataDir() : out.resolve("data");
        for (int i = 0; i < sc.stacks().size(); i++) {
            StackSpec stack = sc.stacks().get(i);
            checkStack(sc, stack, dataRoot.resolve((i + 1) + "-" + stack.name()), device, unavailable);
        }
        return new Plan(sc, device, note, out, dataRoot);
    }

    /**
     * Validates the configuration a stack's run would open: as the scenario states it (Env and device values
     * included, even when the device is off for this run: they are still wrong), and as this run uses it.
     */
    static void checkStack(
            Scenario sc, StackSpec stack, Path data, boolean device, Optional<String> priorityEnvUnavailable) {
        try {
            Sluice.validate(StackRunner.config(stack, data, true));
            SluiceConfig effective = StackRunner.config(stack, data, device);
            Sluice.validate(effective);
            if (effective.env().equals("priority") && priorityEnvUnavailable.isPresent()) {
                throw new ConfigException(SluiceConfig.ENV + " = priority, but the priority Env cannot run here: "
                        + priorityEnvUnavailable.get());
            }
        } catch (ConfigException e) {
            throw stackError(sc, stack, null, e.getMessage(), e);
        }
        // the scenario's records must fit the stack's limits: found only in that stack's preload until 2026-11-29,
        // after the stacks before it had run (a probe of the runner)
        SluiceConfig limits = StackRunner.config(stack, data, false);
        checkLimit(
                sc,
                stack,
                SluiceConfig.MAX_VALUE_BYTES,
                limits.maxValueBytes(),
                "value",
                sc.preload().valueBytes());
        checkLimit(
                sc,
                stack,
                SluiceConfig.MAX_KEY_BYTES,
                limits.maxKeyBytes(),
                "key",
                sc.preload().keyBytes());
        for (Map.Entry<String, dev.sluice.core.quota.PartitionQuota> q :
                limits.quotas().entrySet()) {
            try { // a preload record the partition's write quota can never admit (its batches fit the quota)
                StackRunner.batchRecords(
                        q.getValue(), sc.preload().keyBytes() + sc.preload().valueBytes());
            } catch (IllegalStateException e) {
                throw stackError(sc, stack, "partition." + q.getKey() + ".wcu", e.getMessage(), e);
            }
        }
        for (Map.Entry<String, String> p : stack.sysprops().entrySet()) {
            try {
                if (p.getKey().equals(AutoTunedRateLimiterProfile.RATE_PROPERTY)) {
                    AutoTunedRateLimiterProfile.rateBytesPerSecond(p.getValue());
                } else if (p.getKey().startsWith("sluice.")) {
                    // the benchmark profiles' own properties: a bad value or a misspelt name failed in the stack's
                    // JVM or was ignored (a CLI probe, 2026-11-28); other system properties pass through unchecked
                    dev.sluice.bench.profile.HandTunedProfile.check(p.getKey(), p.getValue());
                }
            } catch (IllegalArgumentException e) {
                throw stackError(sc, stack, "sysprop." + p.getKey(), e.getMessage(), e);
            }
        }
    }

    /** Refuses a stack whose limit {@code key} is below the scenario's {@code what} size. */
    private static void checkLimit(Scenario sc, StackSpec stack, String key, int limit, String what, int size) {
        if (size > limit) {
            throw stackError(
                    sc,
                    stack,
                    key,
                    key + " = " + limit + " is smaller than the scenario's " + what + "s ([preload] " + what
                            + ".bytes = " + size + "): every write would be refused",
                    null);
        }
    }

    private static BenchInputException stackError(
            Scenario sc, StackSpec stack, String knownKey, String message, Exception cause) {
        String msg = message == null ? cause.toString() : message;
        String key = knownKey != null ? knownKey : faultKey(msg, stack);
        StringBuilder sb = new StringBuilder("scenario ")
                .append(sc.name())
                .append(", stack ")
                .append(stack.name());
        if (key != null) {
            boolean asWritten = key.startsWith("env.")
                    || key.startsWith("control.")
                    || key.startsWith("sysprop.")
                    || key.equals("profile")
                    || key.equals("controls");
            sb.append(", key ").append(asWritten ? key : "config." + key);
            Integer line = stack.keyLines().get(key);
            if (line != null) {
                sb.append(" (").append(fileName(sc)).append(':').append(line).append(')');
            }
        }
        return new BenchInputException(sb.append(": ").append(msg).toString(), cause);
    }

    /**
     * The stack option a validation message is about: the one named first in it ({@code env.} options may be named
     * without their prefix, a controller's option as {@code control.NAME: ... KEY ...}).
     */
    static String faultKey(String msg, StackSpec stack) {
        List<String> keys = new ArrayList<>(stack.options().keySet());
        stack.sysprops().keySet().forEach(k -> keys.add("sysprop." + k));
        keys.add("profile");
        keys.add("controls");
        String best = null;
        int bestAt = Integer.MAX_VALUE;
        for (String k : keys) {
            int at = indexOfWord(msg, k);
            if (at < 0 && k.startsWith("env.")) {
                at = indexOfWord(msg, k.substring("env.".length()));
            }
            int dot = k.startsWith("control.") ? k.indexOf('.', "control.".length()) : -1;
            if (at < 0 && dot > 0 && msg.startsWith(k.substring(0, dot) + ":")) {
                at = indexOfWord(msg, k.substring(dot + 1));
            }
            if (at >= 0 && (at < bestAt || (at == bestAt && k.length() > best.length()))) {
                best = k;
                bestAt = at;
            }
        }
        return best;
    }

    /** Where {@code word} occurs in {@code s} not as part of a longer key, or -1. */
    private static int indexOfWord(String s, String word) {
        for (int at = s.indexOf(word); at >= 0; at = s.indexOf(word, at + 1)) {
            boolean startOk = at == 0 || !isKeyChar(s.charAt(at - 1));
            int end = at + word.length();
            boolean endOk =
                    end == s.length() || !isKeyChar(s.charAt(end)) || s.charAt(end) == '.' && end + 1 == s.length();
            if (startOk && endOk) {
                return at;
            }
        }
        return -1;
    }

    private static boolean isKeyChar(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-';
    }

    private static String fileName(Scenario sc) {
        String src = sc.source();
        return src.substring(Math.max(src.lastIndexOf('/'), src.lastIndexOf(':')) + 1);
    }

    /** The smallest heap accepted for a stack's JVM. */
    static final long MIN_HEAP_BYTES = 16L << 20;

    /** Parses a {@code -Xmx} size the way the JVM does (a number, optional k/m/g/t suffix). */
    static long heapBytes(String heap) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(\\d{1,12})([kKmMgGtT]?)").matcher(heap == null ? "" : heap.trim());
        String expected = "expected a size such as 512m or 2g (a whole number with an optional k, m, g or t suffix),"
                + " at least 16m";
        if (!m.matches()) {
            throw new BenchInputException("--heap '" + heap + "': " + expected);
        }
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        long n = Long.parseLong(m.group(1));
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new BenchInputException("--heap '" + heap + "': too large");
        }
        long bytes = n << shift;
        if (bytes < MIN_HEAP_BYTES) {
            throw new BenchInputException("--heap '" + heap + "': " + expected);
        }
        long physical = physicalMemoryBytes();
        if (physical > 0 && bytes > physical) {
            // the stack's JVM would refuse it ("Invalid maximum heap size") only after the run has started
            throw new BenchInputException("--heap '" + heap + "': more than this machine's memory (" + (physical >> 20)
                    + " MiB); each stack's JVM also needs room for RocksDB's native memory");
        }
        return bytes;
    }

    /** The machine's physical memory in bytes, or 0 when the JVM does not report it. */
    private static long physicalMemoryBytes() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 0;
    }

    /**
     * Refuses an output directory that already holds something: a run writes results.json, summary.md, a chart per
     * stack and its logs there, and over an earlier run's files it overwrote some and left the rest (that run's charts
     * and logs of stacks this one does not have) beside them, or, when it failed, left the earlier results.json as if
     * they were this run's (CLI probe, 2026-11-28). An absent or empty directory is fine.
     */
    public static void checkFreshOutput(String option, Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<String> names = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.limit(4).forEach(p -> names.add(String.valueOf(p.getFileName())));
        } catch (IOException e) {
            throw new BenchInputException(option + " " + dir + ": cannot list it: " + e.getMessage(), e);
        }
        if (!names.isEmpty()) {
            java.util.Collections.sort(names);
            if (Files.exists(dir.resolve("results.json")) && !names.contains("results.json")) {
                names.add(0, "results.json"); // an earlier run's: the likeliest mistake, named first
            }
            throw new BenchInputException(option + " " + dir + ": the directory is not empty (it holds "
                    + String.join(", ", names.subList(0, Math.min(3, names.size())))
                    + (names.size() > 3 ? ", ..." : "")
                    + "); a run's results would mix with what is there: give a new or empty directory");
        }
    }

    /**
     * Checks that {@code dir} is, or can be created as, a directory: neither it nor any existing ancestor is a file.
     */
    public static void checkDirectory(String option, Path dir) {
        if (dir.toString().isBlank()) {
            // Path.of("") is the working directory: an unset $OUT in a script would scatter results there
            throw new BenchInputException(option + " is empty: give a directory");
        }
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.exists(abs)) {
            if (!Files.isDirectory(abs)) {
                throw new BenchInputException(option + " " + dir + ": is a file, not a directory");
            }
            if (!Files.isWritable(abs)) {
                throw new BenchInputException(option + " " + dir + ": directory is not writable");
            }
            return;
        }
        for (Path p = abs.getParent(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                if (!Files.isDirectory(p)) {
                    throw new BenchInputException(option + " " + dir + ": " + p + " is a file, not a directory");
                }
                if (!Files.isWritable(p)) {
                    throw new BenchInputException(option + " " + dir + ": cannot create it, " + p + " is not writable");
                }
                return;
            }
        }
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

    /**
     * A stack's data directory is deleted before the stack runs. That is safe only for what a bench run leaves there: an
     * empty directory or a Sluice store (its {@code SLUICE} marker). Anything else is refused before the first stack
     * runs, naming the directory; until 2026-11-26 it was deleted with whatever it held (a hostile-client review lost a
     * file that way by pointing {@code --out} at an existing directory).
     */
    static void checkReplaceable(Path data) throws IOException {
        if (!Files.exists(data, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(data, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            boolean empty;
            try (Stream<Path> s = Files.list(data)) {
                empty = s.findAny().isEmpty();
            }
            if (empty || Files.isRegularFile(data.resolve("SLUICE"))) {
                return;
            }
        }
        throw new BenchInputException(data + " exists and is not a store left by an earlier sluice bench run (no SLUICE"
                + " marker); the run would delete it. Move it away, or choose another --out / --data-dir");
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
     * last window's throughput, p99, L0 files and backlog. Plain (with --no-progress, or when the console is not a
     * terminal): no carriage returns, one status line every {@value #PLAIN_EVERY_SECONDS} s instead — the phase, the
     * elapsed time and the last window's ops/s.
     */
    static final class ProgressView implements StackRunner.Progress, AutoCloseable {
        static final int PLAIN_EVERY_SECONDS = 10;
        private static final long PLAIN_EVERY_NANOS = PLAIN_EVERY_SECONDS * 1_000_000_000L;
        private final PrintStream console;
        private final String task;
        private final int seconds;
        private final boolean plain;
        private final java.util.function.LongSupplier nanoClock;
        private final long start;
        private ProgressBar preloadBar;
        private ProgressBar bar;
        private long lastLine;
        private boolean preloadDone;

        ProgressView(String task, int seconds, boolean plain, PrintStream console) {
            this(task, seconds, plain, console, System::nanoTime);
        }

        ProgressView(
                String task,
                int seconds,
                boolean plain,
                PrintStream console,
                java.util.function.LongSupplier nanoClock) {
            this.task = task;
            this.console = console;
            this.seconds = seconds;
            this.plain = plain;
            this.nanoClock = nanoClock;
            this.start = nanoClock.getAsLong();
            this.lastLine = start;
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

        /** True (and the clock reset) when a plain status line is due. */
        private boolean due() {
            long now = nanoClock.getAsLong();
            if (now - lastLine >= PLAIN_EVERY_NANOS) {
                lastLine = now;
                return true;
            }
            return false;
        }

        private String elapsed() {
            long s = (nanoClock.getAsLong() - start) / 1_000_000_000L;
            return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
        }

        @Override
        public void preload(long done, long total) {
            if (plain) {
                boolean last = done >= total;
                if ((last && !preloadDone) || (!last && due())) {
                    preloadDone |= last;
                    console.println(String.format(
                            Locale.ROOT, "%s preload  elapsed %s  %,d/%,d keys", task, elapsed(), done, total));
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
            if (plain) {
                if (due()) {
                    console.println(String.format(
                            Locale.ROOT,
                            "%s settling  elapsed %s  waiting for compactions %.0f s",
                            task,
                            elapsed(),
                            secs));
                }
                return;
            }
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
                // Counted in windows, not wall time: one line per 10 s of the timeline, and the last one.
                if ((second + 1) % PLAIN_EVERY_SECONDS == 0 || second + 1 == total) {
                    console.println(String.format(
                            Locale.ROOT,
                            "%s phase %s  %d/%d s  elapsed %s  %s",
                            task,
                            w.phase() == null || w.phase().isEmpty() ? "-" : w.phase(),
                            second + 1,
                            total,
                            elapsed(),
                            msg));
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
