package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class LoadShapeTest {
    @Test
    void stepHoldsEachRateThenTheLast() {
        LoadShape s = new LoadShape.Step(List.of(100.0, 200.0, 400.0), 10);
        assertThat(s.rateAt(0)).isEqualTo(100);
        assertThat(s.rateAt(9.99)).isEqualTo(100);
        assertThat(s.rateAt(10)).isEqualTo(200);
        assertThat(s.rateAt(25)).isEqualTo(400);
        assertThat(s.rateAt(1000)).isEqualTo(400);
    }

    @Test
    void squareAlternates() {
        LoadShape s = new LoadShape.Square(1000, 5000, 10, 0.3);
        assertThat(s.rateAt(0)).isEqualTo(5000);
        assertThat(s.rateAt(2.9)).isEqualTo(5000);
        assertThat(s.rateAt(3)).isEqualTo(1000);
        assertThat(s.rateAt(9.9)).isEqualTo(1000);
        assertThat(s.rateAt(10)).isEqualTo(5000);
        assertThat(s.meanRate(100)).isCloseTo(0.3 * 5000 + 0.7 * 1000, within(5.0));
    }

    @Test
    void mixgraphFluctuatesAroundItsMeanDeterministically() {
        LoadShape a = new LoadShape.Mixgraph(10_000, 4_000, 20, 0, 0.1, 1, 99);
        LoadShape b = new LoadShape.Mixgraph(10_000, 4_000, 20, 0, 0.1, 1, 99);
        double min = Double.MAX_VALUE, max = 0;
        for (int t = 0; t < 200; t++) {
            assertThat(a.rateAt(t + 0.5)).isEqualTo(b.rateAt(t + 0.5));
            assertThat(a.rateAt(t)).isEqualTo(a.rateAt(t + 0.99)); // constant within an interval
            min = Math.min(min, a.rateAt(t));
            max = Math.max(max, a.rateAt(t));
            double base = 10_000 + 4_000 * Math.sin(2 * Math.PI * t / 20);
            assertThat(a.rateAt(t)).isBetween(base * 0.9 - 1e-6, base * 1.1 + 1e-6);
        }
        assertThat(max).isGreaterThan(13_000);
        assertThat(min).isLessThan(7_000);
        assertThat(a.meanRate(200)).isCloseTo(10_000, within(500.0));
        assertThat(new LoadShape.Mixgraph(100, 500, 20, 0, 0, 1, 1).rateAt(15)).isZero(); // never negative
    }
}
