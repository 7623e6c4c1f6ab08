package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ConservativeRateTest {
    @Test
    void theWorkedExampleOfTheClassDoc() {
        double tc = ConservativeRate.requestsPerSecond(0.5, 0.5, 4, 10, 1040, 1040, 100e6, 100e6);
        assertThat(tc).isCloseTo(8013, within(1.0));
    }

    @Test
    void moreWriteAmplificationOrASlowerDeviceLowersTheRate() {
        double base = ConservativeRate.requestsPerSecond(0.5, 0.5, 4, 10, 1040, 1040, 100e6, 100e6);
        assertThat(ConservativeRate.requestsPerSecond(0.5, 0.5, 4, 20, 1040, 1040, 100e6, 100e6))
                .isLessThan(base);
        assertThat(ConservativeRate.requestsPerSecond(0.5, 0.5, 4, 10, 1040, 1040, 50e6, 100e6))
                .isLessThan(base);
        // Read-only load: only the read term remains.
        assertThat(ConservativeRate.requestsPerSecond(1, 0, 4, 10, 1000, 1000, 100e6, 100e6))
                .isCloseTo(25_000, within(0.5));
    }

    @Test
    void unknownDeviceGivesNaN() {
        assertThat(ConservativeRate.requestsPerSecond(0.5, 0.5, 4, 10, 1040, 1040, 0, 100e6))
                .isNaN();
    }
}
