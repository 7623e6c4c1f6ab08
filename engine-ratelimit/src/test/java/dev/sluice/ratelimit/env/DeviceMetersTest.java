package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metrics probe (2026-11-28): the emulated device's overdraft counter stayed in the registry after close reading NaN,
 * and a node reopened on the same registry could not register its own (Micrometer kept the dead one).
 */
class DeviceMetersTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    private SluiceConfig config() {
        return SluiceConfig.builder(tmp.resolve("node"))
                .env("priority")
                .envOption("device.enabled", "true")
                .envOption("device.iops", "5000")
                .build();
    }

    @Test
    void theOverdraftCounterLeavesWithTheNodeAndComesBackLiveWithTheNext() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (SluiceNode node = Sluice.open(config(), registry)) {
            node.defaultPartition().put("k".getBytes(), new byte[100]);
            assertThat(registry.get("sluice.device.overdraft.ops")
                            .functionCounter()
                            .count())
                    .isNotNaN()
                    .isGreaterThanOrEqualTo(0);
        }
        assertThat(registry.find("sluice.device.overdraft.ops").functionCounter())
                .as("removed at close")
                .isNull();
        try (SluiceNode node = Sluice.open(config(), registry)) {
            node.defaultPartition().put("k2".getBytes(), new byte[100]);
            assertThat(registry.get("sluice.device.overdraft.ops")
                            .functionCounter()
                            .count())
                    .as("the reopened node's own counter")
                    .isNotNaN()
                    .isGreaterThanOrEqualTo(0);
        }
    }
}
