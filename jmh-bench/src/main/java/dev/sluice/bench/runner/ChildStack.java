package dev.sluice.bench.runner;

import dev.sluice.bench.scenario.StackSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one stack in a child JVM ({@link StackMain}) with the same classpath, so each stack has its own heap, native
 * memory, JIT state and peak RSS (VmHWM), and nothing one stack leaves behind (glibc arenas, page-cache-warm readers)
 * is charged to the next. The stack's system properties ({@code sysprop.*}) become {@code -D} flags. The child's stderr
 * (its log) goes to {@code logFile}; its stdout carries progress lines that are turned into {@link StackRunner.Progress}
 * calls.
 */
final class ChildStack {
    private static final Logger log = LoggerFactory.getLogger(ChildStack.class);

    private ChildStack() {}

    static Results.Stack run(
            Path scenarioFile,
            StackSpec stack,
            Path dataDir,
            Path resultFile,
            Integer duration,
            boolean device,
            String note,
            String heap,
            Path logFile,
            StackRunner.Progress progress)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-Djava.awt.headless=true");
        for (Map.Entry<String, String> e : stack.sysprops().entrySet()) {
            cmd.add("-D" + e.getKey() + "=" + e.getValue());
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(StackMain.class.getName());
        cmd.add(scenarioFile.toString());
        cmd.add(stack.name());
        cmd.add(dataDir.toString());
        cmd.add(resultFile.toString());
        cmd.add(duration == null ? "-" : duration.toString());
        cmd.add(Boolean.toString(device));
        cmd.add(note);
        Files.createDirectories(logFile.getParent());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        log.debug("starting {}", cmd);
        Process p = pb.start();
        // If the runner is interrupted (Ctrl-C), do not leave the stack's JVM running.
        Thread killer = new Thread(p::destroyForcibly, "bench-child-killer");
        Runtime.getRuntime().addShutdownHook(killer);
        try {
            return await(p, stack, resultFile, logFile, progress);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(killer);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
    }

    private static Results.Stack await(
            Process p, StackSpec stack, Path resultFile, Path logFile, StackRunner.Progress progress)
            throws IOException, InterruptedException {
        p.getOutputStream().close();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(StackMain.PREFIX)) {
                    dispatch(line.substring(StackMain.PREFIX.length()).split(" "), progress);
                } else if (!line.isBlank()) {
                    log.info("[{}] {}", stack.name(), line);
                }
            }
        } catch (IOException | RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("stack " + stack.name() + ": child JVM did not exit; see " + logFile);
        }
        if (p.exitValue() != 0 || !Files.exists(resultFile)) {
            throw new IllegalStateException("stack " + stack.name() + " failed (exit code " + p.exitValue() + "); see "
                    + logFile + lastLines(logFile));
        }
        return Results.mapper().readValue(resultFile.toFile(), Results.Stack.class);
    }

    private static void dispatch(String[] f, StackRunner.Progress progress) {
        try {
            switch (f[0]) {
                case "preload" -> progress.preload(Long.parseLong(f[1]), Long.parseLong(f[2]));
                case "settle" -> progress.settling(Double.parseDouble(f[1]));
                case "window" ->
                    progress.window(
                            Integer.parseInt(f[1]),
                            Integer.parseInt(f[2]),
                            Results.Window.progress(
                                    Integer.parseInt(f[1]),
                                    f.length > 7 && !f[7].equals("-") ? f[7] : "",
                                    Long.parseLong(f[3]),
                                    opt(f[4]),
                                    optInt(f[5]),
                                    opt(f[6])));
                default -> {}
            }
        } catch (RuntimeException e) {
            log.debug("unparsable progress line {}", String.join(" ", f), e);
        }
    }

    private static Long opt(String s) {
        return s.equals("-") ? null : Long.parseLong(s);
    }

    private static Integer optInt(String s) {
        return s.equals("-") ? null : Integer.parseInt(s);
    }

    private static String lastLines(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            List<String> tail = lines.subList(Math.max(0, lines.size() - 15), lines.size());
            return tail.isEmpty() ? "" : "\n--- last lines of the log ---\n" + String.join("\n", tail);
        } catch (IOException e) {
            return "";
        }
    }
}
