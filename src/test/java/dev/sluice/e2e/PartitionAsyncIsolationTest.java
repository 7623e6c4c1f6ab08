package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code async.partition.threads}: a partition whose async requests block inside RocksDB (here: a WAL write the Env
 * delays by 5 s, so the write group and every put behind it wait) holds at most its share of the node's async pool,
 * and another partition's request still runs at once. Without the limit the blocked partition takes every thread and
 * the other tenant's read waits for the slow write (measured as a cross-tenant latency spike on
 * {@code flex-noisy-neighbour}).
 */
class PartitionAsyncIsolationTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPartitionBlockedInRocksDbDoesNotHoldTheOtherPartitionsThreads() throws Exception {
        String name = "isolation";
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .partitions("a", "b")
                .env("priority")
                .controls("test-hooks")
                .tickPeriod(Duration.ofMillis(50))
                .asyncThreads(2)
                .asyncPartitionThreads(1)
                .build();
        SluiceNode node = Sluice.open(cfg);
        PriorityEnv env = NodeHooks.ENVS.get("a"); // test-hooks registers the Env under the first partition
        Partition a = node.partition("a");
        Partition bp = node.partition("b");
        bp.put(b("k"), b("v-b"));
        int slow = env.faults()
                .inject(FaultRule.delay(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE), Duration.ofSeconds(5))
                        .maxFaults(1));
        CompletableFuture<Void> a1 = a.putAsync(b("k1"), b("v1"), WriteMode.DEFAULT);
        await().atMost(Duration.ofSeconds(30)).until(() -> env.faults().hits(slow) == 1); // a1 holds a thread
        CompletableFuture<Void> a2 =
                a.putAsync(b("k2"), b("v2"), WriteMode.DEFAULT); // would block behind a1's write group
        CompletableFuture<byte[]> read = bp.getAsync(b("k"));
        await("partition b's read runs while partition a's first write is still held in the Env")
                .atMost(Duration.ofSeconds(3))
                .until(read::isDone);
        assertThat(a1).as("a's delayed write").isNotDone();
        assertThat(read.get()).isEqualTo(b("v-b"));
        node.close(); // a2 waited in a's own queue: close lets it run, nothing is failed or lost
        a1.get();
        a2.get();
        try (SluiceNode again =
                Sluice.open(SluiceConfig.builder(dir).partitions("a", "b").build())) {
            assertThat(again.partition("a").get(b("k1"))).isEqualTo(b("v1"));
            assertThat(again.partition("a").get(b("k2"))).isEqualTo(b("v2"));
        }
    }
}
