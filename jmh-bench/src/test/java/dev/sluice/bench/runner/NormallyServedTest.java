package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class NormallyServedTest {
    @Test
    void countsCompletionsWithinTheSloMinusThrottledOverOffered() {
        Histogram h = new Histogram(3);
        for (int i = 0; i < 90; i++) {
            h.recordValue(2_000); // 2 ms
        }
        for (int i = 0; i < 8; i++) {
            h.recordValue(80_000); // 80 ms: over a 50-ms SLO
        }
        // 100 offered, 98 completed (2 refused), 90 within the SLO, 5 of all throttled
        assertThat(TenantRunner.normallyServed(h, 50, 5, 100)).isEqualTo(0.85);
        assertThat(TenantRunner.normallyServed(h, 100, 0, 100)).isEqualTo(0.98);
        assertThat(TenantRunner.normallyServed(h, 50, 500, 100))
                .as("never negative")
                .isEqualTo(0.0);
    }

    @Test
    void nullWithoutAnSloOrWithoutRequests() {
        Histogram h = new Histogram(3);
        h.recordValue(1);
        assertThat(TenantRunner.normallyServed(h, 0, 0, 1)).isNull();
        assertThat(TenantRunner.normallyServed(new Histogram(3), 50, 0, 0)).isNull();
        assertThat(TenantRunner.normallyServed(new Histogram(3), 50, 0, 10)).isEqualTo(0.0);
    }
}
