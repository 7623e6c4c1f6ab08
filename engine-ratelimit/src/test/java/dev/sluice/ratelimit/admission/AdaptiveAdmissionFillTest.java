package dev.sluice.ratelimit.admission;

import static dev.sluice.ratelimit.admission.AdaptiveAdmissionTest.SEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.control.Action;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fill pace ({@code fill.seconds}) on scripted snapshots: below the target the rate is capped at the one at which
 * the buffer rises at {@code target / fill.seconds} a second, by the window's mass balance. The snapshots come from
 * {@link AdaptiveAdmissionTest#tick} (1-s ticks, 1,040 bytes per write, a 128-MiB budget).
 */
class AdaptiveAdmissionFillTest {
    final AdaptiveAdmissionTest t = new AdaptiveAdmissionTest();

    /** Target 0.6, high 0.8, t_0 20,000/s, a 10-s Eq. 2 period, writes only, the given fill.seconds. */
    static AdaptiveAdmission controller(double fillSeconds) {
        AdaptiveAdmission.Settings b =
                AdaptiveAdmissionTest.withPeriod(AdaptiveAdmissionTest.settings(20_000, 0, 0), 10 * SEC);
        return new AdaptiveAdmission(
                "admission",
                new AdaptiveAdmission.Settings(
                        b.k1(),
                        b.k2(),
                        0.6,
                        0.8,
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
                        fillSeconds));
    }

    /** Budget fractions per second that {@code writes} writes a second put into the buffer. */
    double inflow(long writes) {
        return writes * 1040.0 / t.budgetBytes;
    }

    /**
     * {@code seconds} 1-s ticks of {@code writes} writes (and as many reads) with the watermark rising by {@code rise}
     * a tick from {@code y0}; the actions of all ticks.
     */
    List<Action> run(AdaptiveAdmission c, int seconds, long writes, double y0, double rise) {
        List<Action> out = new ArrayList<>();
        for (int i = 0; i < seconds; i++) {
            out.addAll(c.decide(t.tick(y0 + rise * i, writes, writes, 5), t.now));
        }
        return out;
    }

    static double lastRate(List<Action> actions) {
        assertThat(actions).isNotEmpty();
        return ((Action.SetAdmissionRate) actions.get(actions.size() - 1)).requestsPerSecond();
    }

    @Test
    void aBufferRisingFasterThanThePaceCapsTheRateAtTheMassBalancesRate() {
        // 5,000 writes/s put ~3.9 % of the budget in a second; the buffer rises 2 points a second (the merges take out
        // the rest); fill.seconds = 300 allows 0.6 / 300 = 0.2 points a second.
        AdaptiveAdmission c = controller(300);
        List<Action> a = run(c, 30, 5_000, 0.05, 0.02);
        double in = inflow(5_000);
        double expected = 5_000 * (in - 0.02 + 0.002) / in;
        assertThat(lastRate(a)).as("capped at the rate that fills at the pace").isCloseTo(expected, within(50.0));
        assertThat(a.get(a.size() - 1).reason()).contains("fill pace").contains("+2.000 points/s");
        assertThat(expected).as("below the demand, so the gate binds").isLessThan(5_000);

        // The same snapshots without the fill pace: Eq. 2 raises the rate below the target, whatever the pace.
        AdaptiveAdmissionTest u = new AdaptiveAdmissionTest();
        AdaptiveAdmission off = controller(0);
        List<Action> b = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            b.addAll(off.decide(u.tick(0.05 + 0.02 * i, 5_000, 5_000, 5), u.now));
        }
        assertThat(b).allSatisfy(x -> assertThat(x.reason()).doesNotContain("fill pace"));
        assertThat(off.state("p").rate())
                .as("Eq. 2 alone (its derivative term trims the demand by ~1 %): far above the cap")
                .isGreaterThan(1.5 * expected);
    }

    @Test
    void aBufferRisingSlowerThanThePaceIsCappedAboveTheDemandSoTheGateDoesNotBind() {
        AdaptiveAdmission c = controller(300);
        run(c, 30, 5_000, 0.05, 0.001); // 0.1 points a second, half the allowed 0.2
        double in = inflow(5_000);
        assertThat(c.state("p").fillCap)
                .as("the mass balance's rate: demand x (merged + pace) / written")
                .isCloseTo(5_000 * (in - 0.001 + 0.002) / in, within(50.0))
                .isGreaterThan(5_000);
        assertThat(c.state("p").rate()).isGreaterThanOrEqualTo(c.state("p").fillCap - 1e-6);
    }

    @Test
    void theCapNeedsTwentySecondsOfTicksAndStopsAtTheTarget() {
        AdaptiveAdmission c = controller(300);
        List<Action> first = run(c, 10, 5_000, 0.05, 0.02); // one Eq. 2 period, a 10-s window: no cap yet
        assertThat(first).allSatisfy(x -> assertThat(x.reason()).doesNotContain("fill pace"));
        assertThat(c.state("p").fillCap).isInfinite();

        run(c, 12, 5_000, 0.25, 0.02); // the window holds 22 s at the next step: capped
        double capped = c.state("p").rate();
        assertThat(c.state("p").fillCap).isFinite();
        assertThat(capped).isLessThan(5_000);

        // At the target the cap is lifted at once, and Eq. 2 alone moves the rate (from where it was).
        c.decide(t.tick(0.62, 5_000, 5_000, 5), t.now);
        assertThat(c.state("p").fillCap).isInfinite();
    }

    @Test
    void openingAtOnceStopsAtTheCap() {
        // Far below the target with the gate binding, the controller would double the rate at once (the gate holds
        // requests back while nothing overflows); with the cap it stays at the cap.
        AdaptiveAdmission c = controller(300);
        run(c, 30, 5_000, 0.02, 0.008); // 0.8 points/s against the allowed 0.2: capped below the demand
        double cap = c.state("p").fillCap;
        assertThat(c.state("p").rate()).isCloseTo(cap, within(1.0));
        t.queuedNext = 16; // every client waits at the gate
        List<Action> a = run(c, 5, 4_000, 0.26, 0.002);
        assertThat(a).allSatisfy(x -> assertThat(x.reason()).doesNotContain("gate binding"));
        assertThat(c.state("p").rate()).isLessThanOrEqualTo(c.state("p").fillCap + 1e-6);
        assertThat(c.state("p").fillCap)
                .as("re-measured at the next Eq. 2 step, still below the demand")
                .isLessThan(cap);
    }
}
