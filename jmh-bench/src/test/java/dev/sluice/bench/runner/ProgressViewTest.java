package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bench's console progress: a bar on a terminal, plain status lines (no carriage returns) elsewhere. */
class ProgressViewTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theBarOnlyOnATerminal() {
        assertThat(BenchRun.plainProgress(false, true)).isFalse();
        assertThat(BenchRun.plainProgress(false, false)).as("not a terminal").isTrue();
        assertThat(BenchRun.plainProgress(true, true)).as("--no-progress").isTrue();
    }

    private static Results.Window window(int second, String phase, long ops) {
        return Results.Window.progress(second, phase, ops, 1500L, 2, 3L);
    }

    /** Drives a view through a preload of 25 s (fake clock), a settle and 25 one-second windows. */
    private static String drive(boolean plain) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8);
                BenchRun.ProgressView v = new BenchRun.ProgressView("[1/1] s", 25, plain, ps, now::get)) {
            for (int t = 0; t <= 25; t++) {
                v.preload(t * 1000L, 25_000);
                now.addAndGet(SECOND);
            }
            v.settling(1.0);
            for (int s = 0; s < 25; s++) {
                now.addAndGet(SECOND);
                v.window(s, 25, window(s, s < 12 ? "warm" : "main", 1000 + s));
            }
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void plainLinesEveryTenSecondsWithPhaseElapsedAndThroughput() {
        String out = drive(true);
        assertThat(out).doesNotContain("\r");
        List<String> lines = Arrays.stream(out.split("\n")).toList();
        assertThat(lines)
                .containsExactly(
                        "[1/1] s preload  elapsed 0:10  10,000/25,000 keys",
                        "[1/1] s preload  elapsed 0:20  20,000/25,000 keys",
                        "[1/1] s preload  elapsed 0:25  25,000/25,000 keys",
                        "[1/1] s phase warm  10/25 s  elapsed 0:36  1,009 ops/s  p99 1.50 ms  L0 2  backlog 3",
                        "[1/1] s phase main  20/25 s  elapsed 0:46  1,019 ops/s  p99 1.50 ms  L0 2  backlog 3",
                        "[1/1] s phase main  25/25 s  elapsed 0:51  1,024 ops/s  p99 1.50 ms  L0 2  backlog 3");
    }

    @Test
    void onATerminalTheBarRedrawsInPlace() {
        assertThat(drive(false)).contains("\r");
    }
}
