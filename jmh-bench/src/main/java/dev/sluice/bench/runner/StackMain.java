package dev.sluice.bench.runner;

import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.Scenarios;
import dev.sluice.bench.scenario.StackSpec;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the child JVM that runs one stack ({@link ChildStack} starts it). Arguments: {@code SCENARIO_FILE
 * STACK_NAME DATA_DIR RESULT_FILE DURATION|- DEVICE(true|false) NOTE}. Writes the stack's result as JSON to {@code
 * RESULT_FILE} and reports progress on stdout as lines starting with {@value #PREFIX}; logs go to stderr. Exit code 0
 * on success, 1 on failure.
 */
public final class StackMain {
    static final String PREFIX = "@@sluice ";
    private static final Logger log = LoggerFactory.getLogger(StackMain.class);

    private StackMain() {}

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (Throwable t) {
            log.error("stack run failed", t);
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }

    static int run(String[] a) throws Exception {
        if (a.length != 7) {
            System.err.println("usage: StackMain SCENARIO_FILE STACK DATA_DIR RESULT_FILE DURATION|- DEVICE NOTE");
            return 2;
        }
        Scenario sc = Scenarios.load(a[0]);
        if (!a[4].equals("-")) {
            sc = sc.withDuration(Integer.parseInt(a[4]));
        }
        String name = a[1];
        StackSpec stack = sc.stacks().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no stack " + name));
        PrintStream out = System.out;
        StackRunner.Progress progress = new StackRunner.Progress() {
            @Override
            public void preload(long done, long total) {
                out.println(PREFIX + "preload " + done + " " + total);
                out.flush();
            }

            @Override
            public void settling(double seconds) {
                out.println(PREFIX + "settle " + String.format(Locale.ROOT, "%.1f", seconds));
                out.flush();
            }

            @Override
            public void window(int second, int total, Results.Window w) {
                out.println(PREFIX + "window " + second + " " + total + " " + w.ops() + " " + dash(w.p99Us()) + " "
                        + dash(w.l0Files()) + " " + dash(w.backlog()) + " "
                        + (w.phase().isEmpty() ? "-" : w.phase()));
                out.flush();
            }
        };
        StackRunner runner = new StackRunner(
                sc,
                stack,
                Path.of(a[2]),
                new StackRunner.Options(Boolean.parseBoolean(a[5]), a[6], "child-jvm"),
                progress);
        Results.Stack result = runner.run();
        Path resultFile = Path.of(a[3]);
        Path tmp = resultFile.resolveSibling(resultFile.getFileName() + ".tmp");
        Results.mapper().writeValue(tmp.toFile(), result);
        Files.move(tmp, resultFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return 0;
    }

    private static String dash(Object o) {
        return o == null ? "-" : o.toString();
    }
}
