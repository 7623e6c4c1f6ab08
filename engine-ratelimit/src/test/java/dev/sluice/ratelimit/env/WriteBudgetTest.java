package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * The node scheduler's write-bytes budget (DEVICE.md, "The write budget") on the real native Env and its emulated
 * device, driven by synthetic I/O: background writes are released no faster than the device absorbs them, so a WAL
 * write does not queue behind them in the device's FIFO write pipe.
 */
class WriteBudgetTest {
    private static final long CHUNK = 256 * 1024;
    private static final double MIB = 1 << 20;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    /**
     * Twelve closed-loop background writers (six FLUSH, six COMPACTION_HIGH, one 256 KiB chunk each in flight) against a
     * 20 MiB/s device: without a write budget flexengine's node budget (max(read, write) = 200 MiB/s) releases all of
     * them, the device's write queue runs ~12 chunks (150 ms) ahead and every WAL write waits behind it. With the
     * budget the queue is at most its burst plus one chunk (~17.5 ms).
     */
    @Test
    void walWritesDoNotQueueBehindBackgroundWritesInTheDevice() throws Exception {
        double write = 20 * MIB;
        double chunkNanos = CHUNK * 1e9 / write; // 12.5 ms
        PriorityEnvConfig config = PriorityEnvConfig.fromOptions(Map.of(
                "policy", "flexengine",
                "device.enabled", "true",
                "device.iops", "0",
                "device.read.mbps", "200",
                "device.write.mbps", "20",
                "device.latency.us", "100"));
        try (PriorityEnv env = PriorityEnv.open(config)) {
            List<Long> wal = new ArrayList<>();
            IoDetail before;
            long t0;
            double secs;
            try (SyntheticLoad flush = new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, CHUNK, 6).start();
                    SyntheticLoad compaction =
                            new SyntheticLoad(env, IoClass.COMPACTION_HIGH, FaultRule.Op.WRITE, CHUNK, 6).start()) {
                SyntheticLoad.run(Duration.ofMillis(300)); // let the device's write queue build up
                before = env.ioDetail();
                t0 = System.nanoTime();
                while (System.nanoTime() - t0 < 2_000_000_000L && wal.size() < 200) {
                    wal.add(env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false));
                }
                secs = (System.nanoTime() - t0) / 1e9;
            }
            IoDetail d = env.ioDetail().minus(before);
            Collections.sort(wal);
            long p99 = wal.get((int) Math.ceil(0.99 * wal.size()) - 1);
            // bounded by the write budget's burst (5 ms) + one chunk + the WAL's own transfer; 4 chunk times of margin
            assertThat(p99 / 1e6)
                    .as("WAL write p99 (ms) over %d writes, chunk time %.1f ms", wal.size(), chunkNanos / 1e6)
                    .isLessThan(4 * chunkNanos / 1e6);
            long f = d.get(IoClass.FLUSH).bytes();
            long c = d.get(IoClass.COMPACTION_HIGH).bytes();
            assertThat(f + c).as("background writes still use the device").isGreaterThan((long) (0.5 * write * secs));
            // the write tokens go through the weighted fair queue: flush:compaction 10:1
            assertThat((double) f / c)
                    .as("flush:compaction share of the write budget")
                    .isGreaterThan(3.0);
        }
    }

    /**
     * A write budget of 0.01 MiB/s: one 256 KiB background write takes the bucket ~25 s into debt, so the next
     * background writes wait for write tokens. Reads of every tier — including COMPACTION_HIGH reads queued behind
     * those writes in the same tier's FIFO, and FLUSH reads of a more urgent tier — and a foreground WAL write go
     * through at once; waiting for the write tokens would take tens of seconds each.
     */
    @Test
    void readsAndForegroundWritesDoNotWaitForWriteTokens() throws Exception {
        IoPolicy.WeightedFair flex = IoPolicy.flexEngineNode(200 * MIB);
        IoPolicy.NodeBudget budget = flex.budget().withWriteBytesPerSecond(0.01 * MIB);
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setPolicy(new IoPolicy.WeightedFair(flex.tiers(), flex.weights(), true, budget));
            SyntheticLoad flushWriters = new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, CHUNK, 2).start();
            SyntheticLoad compactionWriters =
                    new SyntheticLoad(env, IoClass.COMPACTION_HIGH, FaultRule.Op.WRITE, CHUNK, 2).start();
            try {
                // the first write took the burst and went; then all four writers wait for write tokens
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> env.schedulerStats().waiting() == 4);
                long writesDone = flushWriters.done.get() + compactionWriters.done.get();
                assertThat(writesDone).as("background writes that got through").isEqualTo(1);
                // 40 reads and a WAL write; one wait for write tokens would take ≥ 20 s
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                    for (int i = 0; i < 10; i++) {
                        for (IoClass c :
                                List.of(IoClass.COMPACTION_HIGH, IoClass.FLUSH, IoClass.PREFETCH, IoClass.USER_GET)) {
                            assertThat(env.syntheticIo(c, FaultRule.Op.READ, 4096, false))
                                    .isNotNegative();
                        }
                    }
                    assertThat(env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false))
                            .isNotNegative();
                });
                assertThat(env.schedulerStats().waiting())
                        .as("the background writes are still waiting for write tokens")
                        .isEqualTo(4);
                assertThat(flushWriters.done.get() + compactionWriters.done.get())
                        .isEqualTo(writesDone);
                assertThat(env.schedulerStats().grantedWriteBytes())
                        .as("write bytes granted: the first background write and the WAL write")
                        .isEqualTo(writesDone * CHUNK + 4096);
            } finally {
                env.setPolicy(IoPolicy.passThrough()); // releases the waiting writers
                flushWriters.stop();
                compactionWriters.stop();
            }
        }
    }

    /**
     * {@code env.policy.node.write.burst.ms} reaches the native scheduler: at a 1 MiB/s write budget, a 1000-ms burst
     * lets sixteen 64 KiB background writes through at once, the default 2-ms burst one (each later one waits ~62 ms for
     * its tokens). {@link PriorityEnv#setWriteBurst} changes it on an open Env.
     */
    @Test
    void theBurstIsHowFarBackgroundWritesMayRunAhead() throws Exception {
        Map<String, String> budget =
                Map.of("policy", "flexengine", "policy.node.mbps", "200", "policy.node.write.mbps", "1");
        HashMap<String, String> big = new HashMap<>(budget);
        big.put("policy.node.write.burst.ms", "1000");
        try (PriorityEnv env = PriorityEnv.open(PriorityEnvConfig.fromOptions(big))) {
            assertThat(backgroundWritesWithin(env, 150))
                    .as("writes in 150 ms, 1000-ms burst")
                    .isGreaterThanOrEqualTo(15);
        }
        try (PriorityEnv env = PriorityEnv.open(PriorityEnvConfig.fromOptions(budget))) {
            assertThat(backgroundWritesWithin(env, 150))
                    .as("writes in 150 ms, 2-ms burst")
                    .isLessThanOrEqualTo(5);
            env.setWriteBurst(Duration.ofSeconds(1));
            SyntheticLoad.run(Duration.ofMillis(1100)); // the bucket refills to its new size
            assertThat(backgroundWritesWithin(env, 150))
                    .as("writes in 150 ms after setWriteBurst(1 s)")
                    .isGreaterThanOrEqualTo(15);
            assertThatThrownBy(() -> env.setWriteBurst(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Serial 64 KiB FLUSH writes until {@code millis} have passed; how many completed. */
    private static int backgroundWritesWithin(PriorityEnv env, long millis) {
        long t0 = System.nanoTime();
        int n = 0;
        while (System.nanoTime() - t0 < millis * 1_000_000L) {
            env.syntheticIo(IoClass.FLUSH, FaultRule.Op.WRITE, 64 * 1024, false);
            n++;
        }
        return n;
    }

    /**
     * Real RocksDB (WAL, flush, compaction, Gets) under flexengine with the device: the scheduler's granted write bytes
     * are exactly the bytes the device wrote (every write took write tokens, nothing else did), and reads leave them
     * unchanged.
     */
    @Test
    void rocksDbWritesAndOnlyWritesTakeWriteTokens(@TempDir Path tmp) throws Exception {
        PriorityEnvConfig config = PriorityEnvConfig.fromOptions(Map.of(
                "policy", "flexengine",
                "device.enabled", "true",
                "device.iops", "0",
                "device.write.mbps", "64",
                "device.latency.us", "0"));
        try (PriorityEnv env = PriorityEnv.open(config)) {
            Path dir = tmp.resolve("wb");
            env.registerPartition("wb", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int f = 0; f < 3; f++) {
                    fill(db, 0, 2000, 1000);
                    db.flush(fo);
                }
                db.compactRange();
                long written = env.deviceStats().writeBytes();
                assertThat(written).as("WAL, flush and compaction output").isGreaterThan(4_000_000);
                assertThat(env.schedulerStats().grantedWriteBytes()).isEqualTo(written);
                long readBefore = env.deviceStats().readBytes();
                for (int i = 0; i < 2000; i += 7) {
                    assertThat(db.get(key(i))).isNotNull();
                }
                assertThat(env.deviceStats().readBytes())
                        .as("Gets read from the device")
                        .isGreaterThan(readBefore);
                assertThat(env.schedulerStats().grantedWriteBytes())
                        .as("reads take no write tokens")
                        .isEqualTo(env.deviceStats().writeBytes());
                assertThat(env.deviceStats().writeBytes()).isEqualTo(written);
            }
        }
    }
}
