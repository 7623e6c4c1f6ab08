package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** API probe (2026-11-28): ways a process or a caller could hang on a node that was not closed the usual way. */
class ExitAndCallbackCloseTest {
    @TempDir
    Path dir;

    /** Writes with flushes on a daemon thread, then System.exit without closing the node. */
    public static final class ExitWhileFlushing {
        public static void main(String[] args) throws Exception {
            SluiceNode node = Sluice.open(
                    SluiceConfig.builder(Path.of(args[0])).env("default").build());
            Partition p = node.defaultPartition();
            Thread writer = new Thread(() -> {
                byte[] v = new byte[4096];
                for (int i = 0; ; i++) {
                    p.put(("k" + i).getBytes(), v, WriteMode.ASYNC);
                    if (i % 200 == 0) {
                        p.flush();
                    }
                }
            });
            writer.setDaemon(true);
            writer.start();
            Thread.sleep(1500);
            System.exit(0);
        }
    }

    /**
     * System.exit while a flush ran hung the JVM (4 of 4 runs): exit joined RocksDB's background threads while one
     * waited to enter the exiting JVM for the node's event listener. Nodes left open are now closed at exit.
     */
    @Test
    void systemExitWithANodeOpenDuringFlushesEndsTheProcess() throws Exception {
        for (int run = 0; run < 3; run++) {
            Path d = dir.resolve("run" + run);
            Process child = ChildJvm.of(ExitWhileFlushing.class, "256m", d.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("child" + run + ".log").toFile())
                    .start();
            boolean exited = child.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                child.destroyForcibly().waitFor();
            }
            assertThat(exited)
                    .as(
                            "run %d ended within 60 s; its output: %s",
                            run, Files.readString(dir.resolve("child" + run + ".log")))
                    .isTrue();
            assertThat(child.exitValue()).isZero();
            assertThat(d.resolve("partitions/default/" + CleanClose.FILE))
                    .as("closed at exit: the clean-close record is there")
                    .exists();
            try (SluiceNode n =
                    Sluice.open(SluiceConfig.builder(d).env("default").build())) {
                assertThat(n.defaultPartition().get("k0".getBytes())).isNotNull();
            }
        }
    }

    /** node.close() from a callback on the node's own async pool waited the full 60 s for the pool it ran on. */
    @Test
    void closingFromACallbackOnTheAsyncPoolDoesNotWaitForItself() throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            SluiceNode node = Sluice.open(SluiceConfig.builder(dir.resolve("cb" + attempt))
                    .env("default")
                    .build());
            AtomicReference<String> thread = new AtomicReference<>();
            AtomicLong took = new AtomicLong(-1);
            CompletableFuture<Void> done = node.defaultPartition()
                    .putAsync("k".getBytes(), new byte[10], WriteMode.SYNC)
                    .thenRun(() -> {
                        thread.set(Thread.currentThread().getName());
                        long t0 = System.nanoTime();
                        node.close();
                        took.set(System.nanoTime() - t0);
                    });
            done.get(90, TimeUnit.SECONDS);
            node.close();
            if (thread.get().startsWith("sluice-async")) {
                assertThat(took.get()).as("close from the pool's own thread").isLessThan(TimeUnit.SECONDS.toNanos(10));
                assertThat(Thread.interrupted()).isFalse();
                return;
            }
        }
        throw new AssertionError("the callback never ran on the async pool in 20 attempts");
    }

    /**
     * With async.partition.threads = 1, a callback waiting for another read of the same partition held the partition's
     * one read slot while it waited: both requests hung (and close took 60 s).
     */
    @Test
    void aCallbackWaitingForTheSamePartitionDoesNotHoldItsSlot() throws Exception {
        try (SluiceNode node = Sluice.open(SluiceConfig.builder(dir.resolve("slots"))
                .env("default")
                .asyncPartitionThreads(1)
                .build())) {
            Partition p = node.defaultPartition();
            p.put("x".getBytes(), "1".getBytes());
            p.put("y".getBytes(), "2".getBytes());
            byte[] y = p.multiGetAsync(List.of("x".getBytes()))
                    .thenApply(v -> p.getAsync("y".getBytes()).join())
                    .get(30, TimeUnit.SECONDS);
            assertThat(y).isEqualTo("2".getBytes());
            assertThat(p.getAsync("x".getBytes()).get(30, TimeUnit.SECONDS)).isEqualTo("1".getBytes());
        }
    }
}
