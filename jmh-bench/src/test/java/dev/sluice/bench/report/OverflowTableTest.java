package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.runner.Results;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverflowTableTest {
    static Results.Window window(
            int second, boolean measured, long ops, long stallMicros, int jobs, long batchMiB, String... overflows) {
        return window(second, measured, ops, "NORMAL", stallMicros, jobs, batchMiB, overflows);
    }

    static Results.Window window(
            int second,
            boolean measured,
            long ops,
            String stall,
            long stallMicros,
            int jobs,
            long batchMiB,
            String... overflows) {
        return new Results.Window(
                second,
                "fill",
                measured,
                ops,
                Map.of(),
                0,
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                stall,
                stallMicros,
                null,
                null,
                null,
                null,
                Map.of(),
                null,
                new Results.Tuning(jobs, 1, batchMiB << 20, 2, 0, 20, 64L << 30, List.of(overflows)),
                null,
                null,
                null);
    }

    static Results.Stack stack(String name, List<String> controls, List<Results.Window> windows) {
        return new Results.Stack(
                name,
                "",
                false,
                "rocksdb-default",
                controls,
                Map.of(),
                Map.of(),
                null,
                null,
                List.of(),
                null,
                Map.of(),
                Map.of(),
                0,
                windows);
    }

    /**
     * RocksDB adds a writer's stall time to STALL_MICROS when the stall ends, so a long stop lands in the first window
     * after it, which shows no overflow any more: that time belongs to the overflow of the stall that just ended.
     */
    @Test
    void stallTimeReportedAfterAStopIsChargedToTheOverflowOfThatStop() {
        List<Results.Window> w = List.of(
                window(0, true, 100, "NORMAL", 0, 2, 64),
                window(1, true, 0, "STOPPED", 0, 2, 64, "MMO"),
                window(2, true, 0, "STOPPED", 0, 2, 128, "MMO"),
                window(3, true, 500, "NORMAL", 2_000_000, 2, 128),
                window(4, true, 500, "NORMAL", 100_000, 2, 64),
                window(5, true, 500, "DELAYED", 0, 2, 64),
                window(6, true, 500, "NORMAL", 300_000, 2, 64));
        assertThat(Summary.overflowTable(List.of(stack("adoc", List.of("adoc"), w))))
                .as("2.0 s after the MMO stop; 0.1 s after no stall; 0.3 s after a delay without overflow")
                .contains("| adoc | 0 / 0 / 2 | 0.0 / 0.0 / 2.0 / 0.4 | 0 / 0 / 2 / 0 |");
    }

    @Test
    void stallsAndZeroWindowsAreChargedToTheFirstOverflowInAdocsOrder() {
        List<Results.Window> w = new ArrayList<>();
        w.add(window(0, false, 0, 9_000_000, 2, 64, "L0O")); // warm-up: not counted
        w.add(window(1, true, 0, 1_000_000, 2, 64, "MMO", "L0O")); // L0O before MMO
        w.add(window(2, true, 500, 250_000, 4, 64, "RDO", "MMO")); // RDO before MMO
        w.add(window(3, true, 0, 500_000, 4, 128, "MMO"));
        w.add(window(4, true, 0, 0, 2, 128)); // nothing seen
        List<Results.Stack> stacks = List.of(
                stack("rocksdb", List.of(), List.of(window(0, true, 10, 0, 2, 64))), stack("adoc", List.of("adoc"), w));
        assertThat(Summary.adocRun(stacks)).isTrue();
        assertThat(Summary.adocRun(stacks.subList(0, 1))).isFalse();
        String table = Summary.overflowTable(stacks);
        assertThat(table)
                .contains("| adoc | 1 / 1 / 3 | 1.0 / 0.3 / 0.5 / 0.0 | 1 / 0 / 1 / 1 | 2–4 | 64–128 |")
                .contains("| rocksdb | 0 / 0 / 0 | 0.0 / 0.0 / 0.0 / 0.0 | 0 / 0 / 0 / 0 | 2–2 | 64–64 |");
    }
}
