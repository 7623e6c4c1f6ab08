package dev.sluice.ratelimit.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Eq. 2 and Eq. 3 on scripted inputs: the paper's worked examples, the minute window, the node-level scaling. */
class FlexBudgetsTest {
    static final long S = 1_000_000_000L, MIN = 60 * S;
    static final double MB = 1e6, KIB = 1024;

    @Test
    void thePapersWorkedExamples() {
        // §4.2: four levels L0..L3, multiplier 10: RAF 4, LSM-BA 25 + 21 = 46
        assertThat(FlexBudgets.readAmplificationFactor(3)).isEqualTo(4.0);
        assertThat(FlexBudgets.lsmBackgroundAmplification(3, 10)).isEqualTo(46.0);
        // Eq. 2: 1000 RCU x 4 KiB x 4 + 500 WCU x 1 KiB
        assertThat(FlexBudgets.foregroundReservation(1000, 500, 4)).isEqualTo(1000 * 4096 * 4 + 500 * 1024.0);
        // §4.2: 120 MB loaded in the last minute = 2 MB/s; §5.3.2: 3 MB/s x LSM-BA 20 = 60 MB/s
        assertThat(FlexBudgets.backgroundBudget(120 * MB / 60, 46)).isEqualTo(92 * MB);
        assertThat(FlexBudgets.backgroundBudget(3 * MB, 20)).isEqualTo(60 * MB);
    }

    @Test
    void dataAvgStartsAtTheWriteQuotaAndIsReestimatedEveryMinute() {
        FlexBudgets f = new FlexBudgets(MIN, 10, 0);
        long t = 0;
        // first tick: no history, Data_avg_psec = WCU x 1 KiB
        FlexBudgets.Budget b = f.update(t, List.of(new FlexBudgets.Input("a", 100, 3000, 0, 3)), 0)
                .get(0);
        assertThat(b.dataAvgPerSec()).isEqualTo(3000 * KIB);
        assertThat(b.backgroundBytesPerSec()).isEqualTo(3000 * KIB * 46);
        // 30 s later with 60 MB written: not a full minute yet, the estimate stays
        b = f.update(t + 30 * S, List.of(new FlexBudgets.Input("a", 100, 3000, (long) (60 * MB), 3)), 0)
                .get(0);
        assertThat(b.dataAvgPerSec()).isEqualTo(3000 * KIB);
        // a minute after the start, 120 MB written in all: 2 MB/s
        b = f.update(t + MIN, List.of(new FlexBudgets.Input("a", 100, 3000, (long) (120 * MB), 3)), 0)
                .get(0);
        assertThat(b.dataAvgPerSec()).isCloseTo(2 * MB, within(1e-6));
        assertThat(b.backgroundBytesPerSec()).isCloseTo(92 * MB, within(1e-3));
        // the next minute the tenant wrote nothing: 0, and the budget follows
        b = f.update(t + 2 * MIN, List.of(new FlexBudgets.Input("a", 100, 3000, (long) (120 * MB), 3)), 0)
                .get(0);
        assertThat(b.dataAvgPerSec()).isZero();
        assertThat(b.backgroundCapBytesPerSec()).isZero();
    }

    @Test
    void backgroundBudgetsAreScaledToLeaveTheForegroundReservationsFree() {
        FlexBudgets f = new FlexBudgets(MIN, 10, 1 * MB);
        // two tenants, deepest level 1 (RAF 2, LSM-BA 3); quotas 1000 RCU + 1000 WCU each
        List<FlexBudgets.Input> in =
                List.of(new FlexBudgets.Input("a", 1000, 1000, 0, 1), new FlexBudgets.Input("b", 1000, 1000, 0, 1));
        double fg = 1000 * 4096 * 2 + 1000 * 1024.0; // 9.216 MB/s each
        double bg = 1000 * 1024.0 * 3; // 3.072 MB/s each (Data_avg = WCU x 1 KiB to start)
        // plenty of node bandwidth: budgets as computed
        List<FlexBudgets.Budget> out = f.update(0, in, 100 * MB);
        assertThat(out.get(0).foregroundBytesPerSec()).isEqualTo(fg);
        assertThat(out.get(0).backgroundCapBytesPerSec()).isEqualTo(bg);
        // node of 20 MB/s: 20 - 2 x 9.216 = 1.568 MB/s left for 6.144 MB/s of budgets -> scaled to 0.784 each, floor 1
        // MB/s
        out = f.update(1, in, 20 * MB);
        assertThat(out.get(0).backgroundBytesPerSec()).isEqualTo(bg);
        assertThat(out.get(0).backgroundCapBytesPerSec()).isEqualTo(1 * MB);
        // node of 24 MB/s: 5.568 MB/s left -> 2.784 MB/s each
        out = f.update(2, in, 24 * MB);
        assertThat(out.get(1).backgroundCapBytesPerSec()).isCloseTo((24 * MB - 2 * fg) / 2, within(1e-3));
    }
}
