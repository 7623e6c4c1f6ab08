package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole node loses power ({@link PriorityEnv#powerCut()}, see DEVICE.md "Power-cut emulation"): every write
 * acknowledged with {@link WriteMode#SYNC} is there after a reopen with a new node and Env; {@link WriteMode#ASYNC}
 * writes made after the last sync are lost. A SIGKILL cannot show the difference (the page cache survives the process;
 * engine-core's DurabilityTest covers that case).
 */
class PowerLossTest {
    private static final int N = 400;

    @TempDir
    Path dir;

    @Test
    void syncWritesSurviveAPowerCutAndAsyncWritesAfterTheLastSyncAreLost() throws Exception {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .partitions("p1", "p2")
                .env("priority")
                .controls("test-hooks")
                .build();
        SluiceNode node = Sluice.open(cfg);
        PriorityEnv env = NodeHooks.ENVS.remove(cfg.partitions().get(0));
        assertThat(env).isNotNull();
        for (int i = 0; i < N; i++) {
            partition(node, i).put(key(i), value(i), WriteMode.SYNC);
        }
        for (int i = N; i < 2 * N; i++) {
            partition(node, i).put(key(i), value(i), WriteMode.ASYNC);
        }
        PriorityEnv.PowerCut cut = env.powerCut();
        assertThat(cut.filesTruncated())
                .as("both WALs lose their unsynced tails")
                .isGreaterThanOrEqualTo(2);
        assertThatThrownBy(() -> node.partition("p1").put(key(9999), value(9999), WriteMode.SYNC))
                .hasMessageContaining("sluice power cut");
        // the machine is off: closing reports errors, but must return
        CompletableFuture<Void> close = CompletableFuture.runAsync(() -> {
            try {
                node.close();
            } catch (RuntimeException expected) {
                // close errors are expected after a power cut
            }
        });
        close.get(60, TimeUnit.SECONDS);

        try (SluiceNode reopened = Sluice.open(SluiceConfig.builder(dir)
                .partitions("p1", "p2")
                .env("priority")
                .controls(List.of())
                .build())) {
            for (int i = 0; i < N; i++) {
                assertThat(partition(reopened, i).get(key(i)))
                        .as("SYNC write %d", i)
                        .isEqualTo(value(i));
            }
            int lost = 0;
            for (int i = N; i < 2 * N; i++) {
                byte[] v = partition(reopened, i).get(key(i));
                if (v == null) {
                    lost++;
                } else {
                    assertThat(v).isEqualTo(value(i));
                }
            }
            assertThat(lost).as("ASYNC writes after the last sync are lost").isPositive();
            assertThat(lost).as("nothing synced them: all of them are lost").isEqualTo(N);
        }
    }

    private static Partition partition(SluiceNode node, int i) {
        return node.partition(i % 2 == 0 ? "p1" : "p2");
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
