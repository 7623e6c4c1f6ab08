package dev.sluice.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TailThroughputTest {
    @Test
    void hundredWindowsP99IsTheSecondLowest() {
        // th = 1..100 in shuffled order; descending position ceil(100*0.99) = 99 -> value 2.
        double[] th = IntStream.rangeClosed(1, 100)
                .mapToDouble(i -> ((i * 37) % 100) + 1)
                .toArray();
        assertThat(TailThroughput.of(th, 99)).isEqualTo(2);
        assertThat(TailThroughput.of(th, 95)).isEqualTo(6);
        assertThat(TailThroughput.of(th, 50)).isEqualTo(51);
        assertThat(TailThroughput.of(th, 100)).isEqualTo(1);
    }

    @Test
    void fiveHundredWindowsP99IsTheSixthLowest() {
        double[] th = IntStream.range(0, 500).mapToDouble(i -> 1000 + i).toArray();
        // Descending position 495 of 500 -> ascending index 5 -> 1005.
        assertThat(TailThroughput.of(th, 99)).isEqualTo(1005);
    }

    @Test
    void atLeastPPercentOfWindowsReachTheTailForAnyN() {
        for (int n = 1; n <= 300; n++) {
            double[] th =
                    IntStream.range(0, n).mapToDouble(i -> (i * 7919L) % 1009).toArray();
            for (double p : new double[] {50, 90, 95, 99, 99.9}) {
                double tail = TailThroughput.of(th, p);
                long atOrAbove =
                        java.util.Arrays.stream(th).filter(v -> v >= tail).count();
                assertThat((double) atOrAbove).as("n=%d p=%s", n, p).isGreaterThanOrEqualTo(n * p / 100);
                long above = java.util.Arrays.stream(th).filter(v -> v > tail).count();
                // and it is the largest such value: strictly above it are fewer than P % of windows
                assertThat((double) above).as("n=%d p=%s", n, p).isLessThan(n * p / 100);
            }
        }
    }

    @Test
    void stallWindowsDragTheTailDownButNotTheMean() {
        // CruiseDB Fig. 3's shape: mostly fast, a few near-zero seconds.
        double[] th = new double[100];
        java.util.Arrays.fill(th, 40_000);
        th[10] = 0;
        th[40] = 500;
        th[70] = 5_000;
        assertThat(TailThroughput.of(th, 99)).isEqualTo(500);
        assertThat(TailThroughput.of(th, 95)).isEqualTo(40_000);
    }

    @Test
    void edgeCases() {
        assertThat(TailThroughput.of(new double[0], 99)).isZero();
        assertThat(TailThroughput.of(new double[] {7}, 99)).isEqualTo(7);
        double[] input = {3, 1, 2};
        TailThroughput.of(input, 99);
        assertThat(input).containsExactly(3, 1, 2);
        assertThatThrownBy(() -> TailThroughput.of(input, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TailThroughput.of(input, 101)).isInstanceOf(IllegalArgumentException.class);
    }
}
