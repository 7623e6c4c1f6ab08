package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.metrics.CpuMeter;
import dev.sluice.bench.runner.Results;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's CPU-steal rows: over the run, and over the slowest seconds that decide the P99 tail. */
class StealRowsTest {
    static Results.Window window(int second, long ops, Double steal) {
        CpuMeter.Shares cpu = steal == null ? null : new CpuMeter.Shares(1.0, 0.9, steal);
        return new Results.Window(
                second, "main", true, ops, Map.of(), 0, 0, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, Map.of(), null, null, null, null, cpu);
    }

    @Test
    void slowestSecondsCarryTheirOwnSteal() {
        List<Results.Window> w = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            w.add(window(i, 10_000 + i, 0.0));
        }
        // the two slowest of 200 seconds (1 %) had the hypervisor take 40 % and 20 % of the machine
        w.set(50, window(50, 2_000, 0.4));
        w.set(120, window(120, 3_000, 0.2));
        Results.Stack s = LevelDebtRowsTest.stack(w);
        assertThat(Summary.slowestMean(s, 0.01, x -> x.cpu().steal()))
                .isEqualTo(0.3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(Summary.windowMean(s, 0, 1, x -> x.cpu().steal()))
                .isEqualTo(0.003, org.assertj.core.data.Offset.offset(1e-9));
        Summary.Row slowest = Summary.rows(List.of(s)).stream()
                .filter(r -> r.key().equals("cpu.stealSlowest"))
                .findFirst()
                .orElseThrow();
        assertThat(slowest.value().apply(s)).isEqualTo(0.3, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void noRowsWithoutCpuRecords() {
        List<Results.Window> w = List.of(window(0, 100, null), window(1, 200, null));
        Results.Stack s = LevelDebtRowsTest.stack(w);
        assertThat(Summary.rows(List.of(s)))
                .extracting(Summary.Row::key)
                .doesNotContain("cpu.steal", "cpu.stealSlowest");
        assertThat(Summary.slowestMean(
                        s, 0.01, x -> x.cpu() == null ? null : x.cpu().steal()))
                .isNull();
    }
}
