package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.runner.Results;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The step-burst summary: served vs offered per phase, and the seconds to recover after the burst. */
class OpenLoopTableTest {
    static Results.Phase phase(String name, int start, int seconds, double rate) {
        return new Results.Phase(
                name,
                "open",
                "async",
                start,
                seconds,
                true,
                null,
                "m",
                "uniform",
                "constant",
                rate,
                null,
                null,
                null,
                null,
                null);
    }

    static Results.Window window(int second, String phase, long ops, long rejected, long p99Us) {
        return new Results.Window(
                second, phase, true, ops, Map.of(), rejected, 0, null, p99Us, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, Map.of(), null, null, null, null, null);
    }

    static Results.Stack stack(List<Results.Window> windows) {
        return new Results.Stack(
                "sluice",
                "",
                false,
                "p",
                List.of(),
                Map.of(),
                Map.of(),
                null,
                null,
                List.of(phase("steady", 0, 4, 1000), phase("burst", 4, 2, 4000), phase("after", 6, 6, 1000)),
                null,
                Map.of(),
                Map.of(),
                0,
                windows);
    }

    @Test
    void recoveryIsTheFirstSecondThatStartsThreeSecondsAtTheOfferedRateWithP99BackInItsPreBurstRange() {
        List<Results.Window> w = new ArrayList<>();
        long[] steadyP99 = {1000, 1200, 1100, 1300}; // the pre-burst range: up to its 90th percentile, 1,300 µs
        for (int i = 0; i < 4; i++) {
            w.add(window(i, "steady", 1000, 0, steadyP99[i]));
        }
        w.add(window(4, "burst", 2500, 1000, 90_000));
        w.add(window(5, "burst", 2500, 1000, 90_000));
        // after: 1 s still draining (served above the rate, p99 high), 1 s at the rate but p99 above the range, then
        // back
        long[][] after = {{2000, 40_000}, {1000, 2_400}, {1000, 1_300}, {1000, 1_200}, {1000, 1_250}, {1000, 1_200}};
        for (int i = 0; i < after.length; i++) {
            w.add(window(6 + i, "after", after[i][0], 0, after[i][1]));
        }
        List<Summary.OpenPhase> ps = Summary.openPhases(stack(w));
        assertThat(ps).extracting(Summary.OpenPhase::phase).containsExactly("steady", "burst", "after");
        assertThat(ps.get(0).served()).isEqualTo(1000);
        assertThat(ps.get(0).afterBurst()).isFalse();
        assertThat(ps.get(1).refused()).isEqualTo(2000);
        assertThat(ps.get(1).served()).isEqualTo(2500);
        Summary.OpenPhase a = ps.get(2);
        assertThat(a.afterBurst()).isTrue();
        assertThat(a.recoverySeconds()).isEqualTo(2);
        assertThat(Summary.openLoopTable(List.of(stack(w))))
                .contains("| sluice | after | 1,000 | 1,167 | 1.17 | 0 | 1.30 | 2 s |");
    }

    @Test
    void aStackThatNeverRecoversSaysSo() {
        List<Results.Window> w = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            w.add(window(i, "steady", 1000, 0, 1000));
        }
        w.add(window(4, "burst", 1000, 0, 90_000));
        w.add(window(5, "burst", 1000, 0, 90_000));
        for (int i = 0; i < 6; i++) {
            w.add(window(6 + i, "after", 1000, 0, 30_000)); // keeps the rate, but with the burst's queue behind it
        }
        assertThat(Summary.openPhases(stack(w)).get(2).recoverySeconds()).isNull();
        assertThat(Summary.openLoopTable(List.of(stack(w)))).contains("not within 6 s");
    }
}
