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

    /** Two async threads, one slot per partition (each for reads and for writes), the Env's fault hooks on. */
    private SluiceNode openWithOneSlot(String... partitions) {
        return Sluice.open(SluiceConfig.builder(dir)
                .partitions(partitions)
                .env("priority")
                .controls("test-hooks")
                .tickPeriod(Duration.ofMillis(50))
                .asyncThreads(2)
                .asyncPartitionThreads(1)
                .build());
    }

    /**
     * Submits a put whose WAL write the Env delays by 5 s, and returns once that write is being held: the put (and the
     * write group behind it) occupies an async thread until then.
     */
    private static CompletableFuture<Void> putHeldInTheEnv(PriorityEnv env, Partition p, String key, String value) {
        int slow = env.faults()
                .inject(FaultRule.delay(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE), Duration.ofSeconds(5))
                        .maxFaults(1));
        CompletableFuture<Void> put = p.putAsync(b(key), b(value), WriteMode.DEFAULT);
        await().atMost(Duration.ofSeconds(30)).until(() -> env.faults().hits(slow) == 1);
        return put;
    }

    @Test
    void aPartitionBlockedInRocksDbDoesNotHoldTheOtherPartitionsThreads() throws Exception {
        SluiceNode node = openWithOneSlot("a", "b");
        PriorityEnv env = NodeHooks.ENVS.get("a"); // test-hooks registers the Env under the first partition
        Partition a = node.partition("a");
        Partition bp = node.partition("b");
        bp.put(b("k"), b("v-b"));
        CompletableFuture<Void> a1 = putHeldInTheEnv(env, a, "k1", "v1"); // a1 holds a thread
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

    /**
     * Reads and writes have separate slots: with one slot each, a partition whose write is held in the Env (and whose
     * next write waits in its write queue) still runs its own read at once.
     */
    @Test
    void aPartitionsReadDoesNotWaitBehindItsOwnBlockedWrites() throws Exception {
        SluiceNode node = openWithOneSlot("a");
        PriorityEnv env = NodeHooks.ENVS.get("a");
        Partition a = node.partition("a");
        a.put(b("k"), b("v"));
        CompletableFuture<Void> w1 = putHeldInTheEnv(env, a, "k1", "v1"); // w1 holds the write slot
        CompletableFuture<Void> w2 = a.putAsync(b("k2"), b("v2"), WriteMode.DEFAULT); // waits in a's write queue
        CompletableFuture<byte[]> read = a.getAsync(b("k"));
        await("a's read runs while a's write is held in the Env")
                .atMost(Duration.ofSeconds(3))
                .until(read::isDone);
        assertThat(w1).as("a's delayed write").isNotDone();
        assertThat(w2).as("a's second write, queued behind the first").isNotDone();
        assertThat(read.get()).isEqualTo(b("v"));
        node.close();
        w1.get();
        w2.get();
        try (SluiceNode again =
                Sluice.open(SluiceConfig.builder(dir).partitions("a").build())) {
            assertThat(again.partition("a").get(b("k1"))).isEqualTo(b("v1"));
            assertThat(again.partition("a").get(b("k2"))).isEqualTo(b("v2"));
        }
    }
}
