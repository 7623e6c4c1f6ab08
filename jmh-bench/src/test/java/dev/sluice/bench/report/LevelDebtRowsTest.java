package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.runner.Results;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's debt rows: RocksDB's pending estimate and the levels' excess over their targets, per tenth of a run. */
class LevelDebtRowsTest {
    private static final long MIB = 1 << 20;

    static Results.Window window(int second, boolean measured, Long pending, List<Long> bytes, List<Long> targets) {
        return new Results.Window(
                second, "main", measured, 1000, Map.of(), 0, 0, null, null, null, null, null, null, null, null, null,
                pending, bytes, targets, null, null, null, null, null, null, Map.of(), null, null, null, null, null);
    }

    static Results.Stack stack(List<Results.Window> windows) {
        Results.Stack metricsOnly = HeadlineTest.stack("s", 1000, 900, 1000);
        return new Results.Stack(
                "s",
                "",
                false,
                "p",
                List.of(),
                Map.of(),
                Map.of(),
                null,
                null,
                List.of(),
                metricsOnly.metrics(),
                Map.of(),
                Map.of(),
                0,
                windows,
                List.of(),
                Map.of(),
                null);
    }

    @Test
    void excessCountsLevelsBetweenL0AndTheLastNonEmptyLevelAboveTheirTargets() {
        // L0 600 MiB (not counted), L5 1,000 MiB against 256, L6 (last, target = its size) 2,000 MiB
        Results.Window sp = window(
                0,
                true,
                4000 * MIB,
                List.of(600 * MIB, 0L, 0L, 0L, 0L, 1000 * MIB, 2000 * MIB),
                List.of(0L, 0L, 0L, 0L, 0L, 256 * MIB, 2000 * MIB));
        assertThat(Summary.levelExcess(sp)).isEqualTo((double) (744 * MIB));
        // an intermediate level under its target adds nothing, one over it adds its excess
        Results.Window three = window(
                0,
                true,
                0L,
                List.of(0L, 0L, 0L, 0L, 100 * MIB, 300 * MIB, 2000 * MIB),
                List.of(0L, 0L, 0L, 0L, 256 * MIB, 200 * MIB, 2000 * MIB));
        assertThat(Summary.levelExcess(three)).isEqualTo((double) (100 * MIB));
        // the last non-empty level is never debt, even when its target is smaller (RocksDB's static targets)
        Results.Window lastOver = window(0, true, 0L, List.of(0L, 900 * MIB, 0L), List.of(0L, 256 * MIB, 2560 * MIB));
        assertThat(Summary.levelExcess(lastOver)).isZero();
        assertThat(Summary.levelExcess(window(0, true, 0L, null, null))).isNull();
    }

    @Test
    void tenthsAreTakenOverMeasuredWindowsOnlyAndRowsAppearOnlyWithTheData() {
        List<Results.Window> ws = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ws.add(window(i, false, 999 * MIB, null, null)); // warm-up: excluded
        }
        for (int i = 0; i < 100; i++) {
            ws.add(window(10 + i, true, i * MIB, null, null));
        }
        Results.Stack s = stack(ws);
        // measured windows 50..59 and 90..99 carry pending = their index in MiB
        assertThat(Summary.windowMean(
                        s, 0.5, 0.6, w -> w.pendingCompactionBytes().doubleValue()))
                .isEqualTo(54.5 * MIB);
        assertThat(Summary.windowMean(
                        s, 0.9, 1.0, w -> w.pendingCompactionBytes().doubleValue()))
                .isEqualTo(94.5 * MIB);
        List<String> keys =
                Summary.rows(List.of(s)).stream().map(Summary.Row::key).toList();
        assertThat(keys).contains("pendingCompaction.midRun", "pendingCompaction.end");
        assertThat(keys).doesNotContain("levelExcess.midRun"); // no level sizes in these windows
        Results.Stack none = stack(List.of(window(0, true, null, null, null)));
        assertThat(Summary.rows(List.of(none)).stream().map(Summary.Row::key)).doesNotContain("pendingCompaction.end");
    }
}
