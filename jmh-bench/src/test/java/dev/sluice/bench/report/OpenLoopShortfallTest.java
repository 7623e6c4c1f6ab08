package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.runner.Results;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Arrivals an open-loop stack dropped or never started are said in summary.md's table and warnings (a probe of the
 * runner, 2026-11-29: 91 % of the requests dropped, p99 2.3 ms over the rest, and "dropped" written nowhere a person
 * reads).
 */
class OpenLoopShortfallTest {
    static Results.Phase phase(boolean measured, long generated, long unstarted, long dropped) {
        return new Results.Phase(
                "main",
                "open",
                "sync",
                0,
                3,
                measured,
                16,
                "m",
                "uniform",
                "constant(2000000.0/s)",
                2e6,
                generated,
                unstarted,
                dropped,
                100L,
                Map.of());
    }

    static Results.Stack stack(String name, List<Results.Phase> phases) {
        return new Results.Stack(
                name, "", false, "p", List.of(), Map.of(), Map.of(), null, null, phases, null, Map.of(), Map.of(), 0,
                List.of());
    }

    @Test
    void droppedAndUnstartedRequestsOfTheMeasuredPhasesAreCountedAndSaid() {
        Results.Stack s = stack("slow", List.of(phase(false, 1_000, 0, 500), phase(true, 6_000_000, 10, 5_466_722)));
        assertThat(Summary.openLoopSum(s, Results.Phase::dropped)).isEqualTo(5_466_722); // the warm-up's left out
        assertThat(Summary.openLoopShortfall(s))
                .isEqualTo("slow did not keep up with the open-loop load: of 6,000,000 requests offered, 5,466,722"
                        + " (91.1 %) were dropped (backlog full) and 10 never started; its latencies cover only the"
                        + " requests it ran");
    }

    @Test
    void aStackThatRanEveryArrivalHasNoWarning() {
        assertThat(Summary.openLoopShortfall(stack("ok", List.of(phase(true, 6_000, 0, 0)))))
                .isNull();
    }
}
