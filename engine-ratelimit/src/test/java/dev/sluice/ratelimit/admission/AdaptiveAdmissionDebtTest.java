package dev.sluice.ratelimit.admission;

import static dev.sluice.ratelimit.admission.AdaptiveAdmissionTest.SEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.LevelInfo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The levels' debt ceiling ({@code debt.window.seconds}) on scripted snapshots: the bytes the levels between L0 and the
 * last hold above their targets, and what the ceiling does while they grow, hold and shrink. Snapshots from {@link
 * AdaptiveAdmissionTest#tick} (1-s ticks), the buffer held at the target so that Eq. 2 alone would leave the rate be.
 */
class AdaptiveAdmissionDebtTest {
    static final long MIB = 1 << 20;
    final AdaptiveAdmissionTest t = new AdaptiveAdmissionTest();

    /** Target 0.5, t_0 20,000/s, a 10-s Eq. 2 period, writes only, the given debt window. */
    static AdaptiveAdmission controller(double debtWindowSeconds) {
        AdaptiveAdmission.Settings b =
                AdaptiveAdmissionTest.withPeriod(AdaptiveAdmissionTest.settings(20_000, 0, 0), 10 * SEC);
        return new AdaptiveAdmission(
                "admission",
                new AdaptiveAdmission.Settings(
                        b.k1(),
                        b.k2(),
                        b.targetWatermark(),
                        b.highWatermark(),
                        b.initialRate(),
                        b.warmupNanos(),
                        b.minRate(),
                        b.maxRateFactor(),
                        0,
                        0,
                        AdmissionScope.WRITES,
                        b.changeThreshold(),
                        b.watermarkSource(),
                        b.periodNanos(),
                        b.drainTicks(),
                        b.drainHorizonSeconds(),
                        b.conservativeHorizonSeconds(),
                        debtWindowSeconds));
    }

    /** L1 (base, target 256 MiB) holding {@code baseBytes}, L2 the last level (its target = its size). */
    static List<LevelInfo> tree(long baseBytes) {
        return List.of(
                new LevelInfo(1, 4, baseBytes, 256 * MIB, List.of()),
                new LevelInfo(2, 40, 4096 * MIB, 4096 * MIB, List.of()));
    }

    /**
     * {@code seconds} ticks of {@code writes} writes a second, the buffer at the target, the base level holding {@code
     * base(i)} bytes at tick i; the actions.
     */
    List<Action> run(AdaptiveAdmission c, int seconds, long writes, java.util.function.IntToLongFunction base) {
        List<Action> out = new ArrayList<>();
        for (int i = 0; i < seconds; i++) {
            t.belowL0 = tree(base.applyAsLong(i));
            out.addAll(c.decide(t.tick(0.5, writes, writes, 5), t.now));
        }
        return out;
    }

    static List<Action> debtActions(List<Action> actions) {
        return actions.stream().filter(a -> a.reason().contains("debt ceiling")).toList();
    }

    @Test
    void excessCountsTheLevelsBetweenL0AndTheLastAboveTheirTargets() {
        t.l0Bytes = 900 * MIB; // L0 is the buffer the watermark counts: not debt
        t.belowL0 = List.of(
                new LevelInfo(1, 0, 0, 0, List.of()),
                new LevelInfo(2, 4, 400 * MIB, 256 * MIB, List.of()), // 144 MiB over
                new LevelInfo(3, 9, 1000 * MIB, 1280 * MIB, List.of()), // under its target: nothing
                new LevelInfo(4, 40, 9000 * MIB, 6400 * MIB, List.of())); // the last level: never over
        long excess =
                LevelInfo.excessBytes(t.tick(0.5, 0, 0, 5).partitions().get("p").levels());
        assertThat(excess).isEqualTo(144 * MIB);
    }

    @Test
    void growingDebtLowersTheCeilingBelowTheAdmittedRateAndTheRateFollows() {
        AdaptiveAdmission c = controller(120);
        // The base level grows by 1 MiB a second (120 MiB over the window) while 5,000 writes a second are admitted.
        List<Action> a = run(c, 300, 5_000, i -> 256 * MIB + i * MIB);
        List<Action> debt = debtActions(a);
        assertThat(debt).as("the ceiling came down").isNotEmpty();
        double ceiling = c.state("p").debtCeiling();
        assertThat(ceiling).isLessThan(5_000 * (1 - AdaptiveAdmission.DEBT_STEP) + 1e-6);
        assertThat(c.state("p").rate()).as("the rate is under the ceiling").isLessThanOrEqualTo(ceiling + 1e-6);
        assertThat(debt.get(0).reason()).contains("levels over target by").contains("debt.window.seconds");
        // First step: 4 % below the 5,000/s admitted over the window, once the window is full (~108 s) and at a
        // quarter-window boundary.
        double first = ((Action.SetAdmissionRate) debt.get(0)).requestsPerSecond();
        assertThat(first).isCloseTo(5_000 * (1 - AdaptiveAdmission.DEBT_STEP), within(1.0));
        // Steps come a quarter window (30 s) apart, each 4 % below the last: over ~190 s about six of them.
        assertThat(debt.size()).isBetween(5, 7);
        assertThat(ceiling).isCloseTo(first * Math.pow(1 - AdaptiveAdmission.DEBT_STEP, debt.size() - 1), within(1.0));
    }

    @Test
    void debtThatHoldsOrJumpsAroundALevelSetsNoCeiling() {
        AdaptiveAdmission c = controller(120);
        // The base level steps between 400 and 700 MiB every 5 s (compactions ending and starting), no trend: the
        // least-squares growth over any 120-s window of it is at most ~37 MiB, under the 64-MiB threshold.
        List<Action> a = run(c, 400, 5_000, i -> (i / 5) % 2 == 0 ? 400 * MIB : 700 * MIB);
        assertThat(debtActions(a)).isEmpty();
        assertThat(c.state("p").debtCeiling()).isInfinite();
    }

    @Test
    void theCeilingRisesOnceTheDebtStopsGrowingAndIsLiftedWhenItNoLongerBinds() {
        AdaptiveAdmission c = controller(120);
        run(c, 250, 5_000, i -> 256 * MIB + i * MIB);
        double low = c.state("p").debtCeiling();
        assertThat(low).isLessThan(5_000);
        // Then the deep compactions catch up: the excess falls back by 1 MiB a second, the load stays at what the
        // ceiling lets in.
        long peak = 256 * MIB + 249 * MIB;
        List<Action> a = new ArrayList<>();
        double highest = low;
        for (int i = 0; i < 600 && !Double.isInfinite(c.state("p").debtCeiling()); i++) {
            t.belowL0 = tree(Math.max(256 * MIB, peak - i * MIB));
            long admitted = (long) Math.min(5_000, c.state("p").rate());
            a.addAll(c.decide(t.tick(0.5, admitted, admitted, 5), t.now));
            if (!Double.isInfinite(c.state("p").debtCeiling())) {
                highest = Math.max(highest, c.state("p").debtCeiling());
            }
        }
        assertThat(highest).as("raised in 4 % steps").isGreaterThan(low * (1 + AdaptiveAdmission.DEBT_STEP) - 1e-6);
        assertThat(c.state("p").debtCeiling()).as("lifted").isInfinite();
    }

    @Test
    void offByDefault() {
        AdaptiveAdmission c = controller(0);
        List<Action> a = run(c, 300, 5_000, i -> 256 * MIB + 4 * i * MIB);
        assertThat(debtActions(a)).isEmpty();
        assertThat(c.state("p").debtCeiling()).isInfinite();
    }
}
