package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.KeyRange;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native priority Env under a real node: it is the default, and the snapshot's I/O per class comes from it. */
class PriorityEnvNodeTest {
    @TempDir
    Path dir;

    @Test
    void nodesUseThePriorityEnvByDefaultAndSeeIoPerClassAndPartition() {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .partitions("busy", "idle")
                .blockCacheBytes(0)
                .build();
        try (SluiceNode node = Sluice.open(cfg)) {
            assertThat(node.priorityEnv())
                    .as("env=auto picks the priority Env on linux-x86_64")
                    .isTrue();
            Partition p = node.partition("busy");
            Random rnd = new Random(7);
            for (int f = 0; f < 6; f++) { // 6 flushes: L0 reaches the compaction trigger (4)
                for (int i = 0; i < 3000; i++) {
                    byte[] v = new byte[200];
                    rnd.nextBytes(v);
                    p.put(String.format("key-%06d", rnd.nextInt(50_000)).getBytes(), v);
                }
                p.flush();
            }
            for (int i = 0; i < 2000; i++) {
                p.get(String.format("key-%06d", i * 25).getBytes());
            }
            assertThat(p.scan(KeyRange.all(), 5000)).hasSize(5000);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                IoStats io = node.sample().partition("busy").io();
                return io.get(IoClass.COMPACTION_L0).bytes()
                                + io.get(IoClass.COMPACTION_HIGH).bytes()
                                + io.get(IoClass.COMPACTION_DEEP).bytes()
                        > 0;
            });
            LsmSnapshot busy = node.sample().partition("busy");
            LsmSnapshot idle = node.sample().partition("idle");
            IoStats io = busy.io();
            assertThat(io.source()).isEqualTo(IoStats.Source.ENV);
            assertThat(io.get(IoClass.WAL).bytes()).isGreaterThan(6 * 3000 * 200L);
            assertThat(io.get(IoClass.FLUSH).bytes()).isGreaterThan(1_000_000);
            assertThat(io.get(IoClass.USER_GET).ops()).isPositive();
            assertThat(io.get(IoClass.USER_SCAN).ops()).isPositive();
            assertThat(busy.readAmplification())
                    .as("measured from Env byte counters")
                    .isPositive();
            assertThat(idle.io().get(IoClass.WAL).bytes())
                    .as("the idle tenant's I/O is not charged the busy one's")
                    .isZero();
            assertThat(idle.io().get(IoClass.USER_GET).ops()).isZero();
            assertThat(node.latestSnapshot().io().source()).isEqualTo(IoStats.Source.ENV);
        }
    }

    @Test
    void envOptionsAreValidatedByTheNode() {
        SluiceConfig bad =
                SluiceConfig.builder(dir).envOption("device.iopz", "100").build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.open(bad))
                .hasMessageContaining("env.device.iopz is not an option of the priority Env");
        assertThat(dir.resolve("SLUICE")).doesNotExist();
    }
}
