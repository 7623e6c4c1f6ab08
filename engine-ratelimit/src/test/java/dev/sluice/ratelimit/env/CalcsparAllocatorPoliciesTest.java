package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Calcspar Fig. 19's comparison allocators share the calcspar policy's three queues and paid IOPS. */
class CalcsparAllocatorPoliciesTest {
    @Test
    void staticAndDynamicAllocatorsUseTheSameQueuesAndPaidIops() {
        Map<String, String> device = Map.of("device.enabled", "true", "device.iops", "1500");
        IoPolicy sa =
                PriorityEnvConfig.fromOptions(with(device, "calcspar-static")).policy();
        assertThat(sa).isInstanceOfSatisfying(IoPolicy.WeightedFair.class, w -> {
            assertThat(w.weights()).containsExactly(6.0, 3.0, 1.0);
            assertThat(w.strictTopTier()).isFalse();
            assertThat(w.budget().opsPerSecond()).isEqualTo(1500);
            assertThat(w.tiers()).isEqualTo(IoPolicy.calcspar(1500).tiers());
        });
        IoPolicy da =
                PriorityEnvConfig.fromOptions(with(device, "calcspar-dynamic")).policy();
        assertThat(da).isInstanceOfSatisfying(IoPolicy.StrictPriority.class, s -> {
            assertThat(s.budget().opsPerSecond()).isEqualTo(1500);
            assertThat(s.tiers().get(IoClass.PREFETCH)).isEqualTo(2);
        });
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy", "calcspar-static")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.policy = calcspar-static needs paid IOPS");
    }

    private static Map<String, String> with(Map<String, String> m, String policy) {
        java.util.HashMap<String, String> out = new java.util.HashMap<>(m);
        out.put("policy", policy);
        return out;
    }
}
