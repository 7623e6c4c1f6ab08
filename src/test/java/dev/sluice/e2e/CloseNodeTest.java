package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Close on a slow device: admitted async requests finish, and a long manual compaction is aborted instead of holding
 * close for its whole run (the priority Env delays the I/O).
 */
class CloseNodeTest {
    @TempDir
    Path dir;

    private SluiceConfig.Builder cfg(String partition) {
        return SluiceConfig.builder(dir)
                .partitions(partition)
                .env("priority")
                .controls("test-hooks")
                .tickPeriod(Duration.ofMillis(50));
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    private static byte[] value(int i, int size) {
        byte[] v = new byte[size];
        new Random(i).nextBytes(v);
        return v;
    }

    @Test
    void closeAbortsARunningManualCompactionOnASlowDevice() {
        String name = "slow-compaction";
        int perFile = 6_000, size = 1_000; // 3 L0 files of ~6 MB, fewer than the L0 compaction trigger (4)
        SluiceNode node = Sluice.open(cfg(name).build());
        PriorityEnv env = NodeHooks.ENVS.get(name);
        Partition p = node.partition(name);
        for (int f = 0; f < 3; f++) {
            for (int i = f * perFile; i < (f + 1) * perFile; i++) {
                p.put(key(i), value(i, size));
            }
            p.flush();
        }
        LsmSnapshot s = node.sample().partition(name);
        assertThat(s.l0Files()).isEqualTo(3);
        List<String> files =
                s.levels().get(0).files().stream().map(SstFile::name).toList();
        // every compaction output write now takes 2 s: the compaction would run for about a minute
        int slow = env.faults()
                .inject(FaultRule.delay(
                        Set.of(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP),
                        Set.of(FaultRule.Op.WRITE),
                        Duration.ofSeconds(2)));
        NodeHooks.ACTIONS.get(name).add(new Action.CompactFiles(name, files, 1, "test: a long manual compaction"));
        await().atMost(Duration.ofSeconds(60)).until(() -> env.faults().hits(slow) >= 1);
        long t0 = System.nanoTime();
        node.close();
        long closeMillis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(closeMillis)
                .as("close aborts the running compactFiles instead of waiting for it")
                .isLessThan(15_000);
        try (SluiceNode again = Sluice.open(cfg(name).controls(List.of()).build())) {
            Partition q = again.partition(name);
            for (int i = 0; i < 3 * perFile; i++) {
                assertThat(q.get(key(i))).as("key %d", i).isEqualTo(value(i, size));
            }
        }
    }

    @Test
    void anAdmittedAsyncWriteQueuedBehindASlowOneCompletesAtCloseAndIsDurable() throws Exception {
        String name = "slow-async";
        SluiceNode node = Sluice.open(cfg(name).asyncThreads(1).build());
        PriorityEnv env = NodeHooks.ENVS.get(name);
        Partition p = node.partition(name);
        int slow = env.faults()
                .inject(FaultRule.delay(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE), Duration.ofSeconds(5))
                        .maxFaults(1));
        CompletableFuture<Void> first = p.putAsync(key(1), value(1, 100), WriteMode.SYNC);
        await().atMost(Duration.ofSeconds(60)).until(() -> env.faults().hits(slow) == 1); // running, delayed
        CompletableFuture<Void> queued = p.putAsync(key(2), value(2, 100), WriteMode.SYNC);
        assertThat(queued)
                .as("queued behind the slow write on the only async thread")
                .isNotDone();
        node.close();
        first.get();
        queued.get(); // throws if the admitted request was failed at close
        try (SluiceNode again = Sluice.open(cfg(name).controls(List.of()).build())) {
            assertThat(again.partition(name).get(key(1))).isEqualTo(value(1, 100));
            assertThat(again.partition(name).get(key(2))).isEqualTo(value(2, 100));
        }
    }
}
