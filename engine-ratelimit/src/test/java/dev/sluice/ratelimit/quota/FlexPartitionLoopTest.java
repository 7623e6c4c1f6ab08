package dev.sluice.ratelimit.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code flex-partition} controller on a real node (two partitions, priority Env, flexengine node policy): it sets
 * each partition's background cap from Eq. 3, and the capped partition's flush waits for it.
 */
class FlexPartitionLoopTest {
    @TempDir
    Path dir;

    @Test
    void setsEachPartitionsBackgroundCapAndTheEnvHoldsTheFlushToIt() {
        assumeTrue(PriorityEnv.unavailableReason().isEmpty(), "native priority Env");
        SluiceConfig config = twoPartitions(1000, PartitionQuota.of(100, 5000))
                .controlOption("flex-partition", "floor.mbps", "2")
                .build();
        try (SluiceNode node = Sluice.open(config)) {
            // first tick: Data_avg = WCU x 1 KiB = 5000 KiB/s, LSM-BA 3 (one level) -> 14.65 MiB/s; b has no write
            // quota: Data_avg 0 -> the 2 MiB/s floor
            assertThat(actionsOnce(() -> applied(node), 2))
                    .containsExactlyInAnyOrder("background_cap[a]=14.65MiB/s", "background_cap[b]=2.00MiB/s");
            Partition a = node.partition("a");
            Random rnd = new Random(1);
            for (int i = 0; i < 3000; i++) {
                byte[] v = new byte[1000];
                rnd.nextBytes(v);
                a.put(("k" + i).getBytes(), v);
            }
            a.flush(); // ~3 MB at 14.65 MiB/s: waits
            node.partition("b").put("x".getBytes(), new byte[10]);
            node.partition("b").flush();
            var ioA = node.sample().partition("a").io().get(IoClass.FLUSH);
            var ioB = node.sample().partition("b").io().get(IoClass.FLUSH);
            long minWait = (long) (((ioA.bytes() - (1 << 20)) / (14.6484375 * (1 << 20)) - 0.02) * 1e9);
            assertThat(ioA.waitNanos()).isGreaterThanOrEqualTo(minWait).isPositive();
            assertThat(ioB.waitNanos()).as("b's tiny flush fits its burst").isLessThan(ioA.waitNanos());
        }
    }

    /** Partitions a (with {@code quotaA}) and b on the priority Env, flexengine policy at {@code nodeMbps}. */
    private SluiceConfig.Builder twoPartitions(int nodeMbps, PartitionQuota quotaA) {
        return SluiceConfig.builder(dir)
                .partitions("a", "b")
                .env("priority")
                .envOption("policy", "flexengine")
                .envOption("policy.node.mbps", Integer.toString(nodeMbps))
                .controls("flex-partition")
                .tickPeriod(Duration.ofMillis(100))
                .quota("a", quotaA);
    }

    /** The actions of {@code events} once there are at least {@code n} of them (within 30 s). */
    private static List<String> actionsOnce(java.util.function.Supplier<List<ControlEvent>> events, int n) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> events.get().size() >= n);
        return events.get().stream().map(ControlEvent::action).toList();
    }

    static List<ControlEvent> applied(SluiceNode node) {
        return node.recentEvents().stream()
                .filter(e -> e.controller().equals("flex-partition") && e.outcome() == ControlEvent.Outcome.APPLIED)
                .toList();
    }

    /**
     * Quotas reserving more than the node carries are reported once as an event (and a warning), and again when a live
     * change brings them back within it; nothing said so before 2026-11-28.
     */
    @Test
    void quotasReservingMoreThanTheNodeAreReportedAndTheirEndToo() {
        assumeTrue(PriorityEnv.unavailableReason().isEmpty(), "native priority Env");
        // 10,000 x 4 KiB x RAF 2 + 50,000 KiB = 127 MiB/s
        SluiceConfig config =
                twoPartitions(100, PartitionQuota.of(10_000, 50_000)).build();
        try (SluiceNode node = Sluice.open(config)) {
            assertThat(actionsOnce(() -> reservations(node), 1))
                    .containsExactly("reservations=126.95MiB/s > node=100.00MiB/s");
            node.partition("a").setQuota(PartitionQuota.of(1_000, 5_000)); // 12.70 MiB/s
            assertThat(actionsOnce(() -> reservations(node), 2))
                    .containsExactly(
                            "reservations=126.95MiB/s > node=100.00MiB/s",
                            "reservations=12.70MiB/s <= node=100.00MiB/s");
        }
    }

    private static List<ControlEvent> reservations(SluiceNode node) {
        return applied(node).stream()
                .filter(e -> e.action().startsWith("reservations="))
                .toList();
    }

    /** A floor of 0 gave a partition with no Eq. 3 budget a 1-B/s cap: its flush never finished (probe, 2026-11-28). */
    @Test
    void aFloorBelowOneMibPerSecondIsRefused() {
        SluiceConfig config = SluiceConfig.builder(dir.resolve("fresh"))
                .env("default")
                .controls("flex-partition")
                .controlOption("flex-partition", "floor.mbps", "0")
                .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.validate(config))
                .isInstanceOf(dev.sluice.core.ConfigException.class)
                .hasMessageContaining("floor.mbps")
                .hasMessageContaining("1 to 1000000");
    }

    /** A probe (2026-11-29): with env = default, flex-partition was accepted and failed at every window. */
    @Test
    void withoutThePriorityEnvTheNodeIsRefused() {
        SluiceConfig config = SluiceConfig.builder(dir.resolve("fresh"))
                .env("default")
                .controls("flex-partition")
                .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.validate(config))
                .isInstanceOf(dev.sluice.core.ConfigException.class)
                .hasMessageContaining("'flex-partition', which acts through the priority Env, but env = default");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.open(config))
                .isInstanceOf(dev.sluice.core.ConfigException.class);
        org.assertj.core.api.Assertions.assertThat(dir.resolve("fresh")).doesNotExist();
    }
}
