package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.metrics.CpuMeter;
import dev.sluice.bench.runner.Results;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The summary's CPU-steal and host-I/O-stall rows: over the run, and over the slowest seconds that decide the P99 tail.
 */
class StealRowsTest {
    static Results.Window window(int second, long ops, Double steal) {
        return window(second, ops, steal == null ? null : new CpuMeter.Shares(1.0, 0.9, steal, 0.0, null));
    }

    static Results.Window window(int second, long ops, CpuMeter.Shares cpu) {
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
        List<Results.Window> w = List.of(window(0, 100, (Double) null), window(1, 200, (Double) null));
        Results.Stack s = LevelDebtRowsTest.stack(w);
        assertThat(Summary.rows(List.of(s)))
                .extracting(Summary.Row::key)
                .doesNotContain("cpu.steal", "cpu.stealSlowest");
        assertThat(Summary.slowestMean(
                        s, 0.01, x -> x.cpu() == null ? null : x.cpu().steal()))
                .isNull();
    }

    @Test
    void slowestSecondsCarryTheirHostIoStall() {
        List<Results.Window> w = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            w.add(window(i, 10_000 + i, new CpuMeter.Shares(1.0, 0.5, 0.0, 0.01, 0.0)));
        }
        // the two slowest seconds: every task stalled on the host's I/O for 60 % and 40 % of the second
        w.set(7, window(7, 1_500, new CpuMeter.Shares(0.2, 0.1, 0.0, 0.4, 0.6)));
        w.set(99, window(99, 2_000, new CpuMeter.Shares(0.2, 0.1, 0.0, 0.3, 0.4)));
        Results.Stack s = LevelDebtRowsTest.stack(w);
        List<Summary.Row> rows = Summary.rows(List.of(s));
        Summary.Row slowest = rows.stream()
                .filter(r -> r.key().equals("cpu.ioStalledSlowest"))
                .findFirst()
                .orElseThrow();
        assertThat(slowest.value().apply(s)).isEqualTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        Summary.Row mean = rows.stream()
                .filter(r -> r.key().equals("cpu.ioStalled"))
                .findFirst()
                .orElseThrow();
        assertThat(mean.value().apply(s)).isEqualTo(0.005, org.assertj.core.data.Offset.offset(1e-9));
        // runs recorded before the field existed get no such rows
        assertThat(Summary.rows(List.of(LevelDebtRowsTest.stack(List.of(window(0, 100, 0.0), window(1, 200, 0.0))))))
                .extracting(Summary.Row::key)
                .doesNotContain("cpu.ioStalled", "cpu.ioStalledSlowest");
    }
}
