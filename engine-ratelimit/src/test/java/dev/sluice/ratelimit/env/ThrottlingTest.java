package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.pushLevels;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.sensor.IoClass;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * Class caps on real RocksDB I/O: a Get ops/s cap holds, compaction is throttled while Gets are not. Rates are checked
 * against the caps' token math (an upper bound that holds however busy the machine is) plus a loose lower bound.
 */
class ThrottlingTest {
    /** A class cap lets an idle class burst 20 ms worth of its rate (kCapBurstNs in sluice_core.cc). */
    private static final double CAP_BURST_SECONDS = 0.02;

    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void getOpsCapHolds() throws Exception {
        double cap = 500;
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("get");
            env.registerPartition("get", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                fill(db, 0, 5000, 400);
                db.flush(fo);
                env.setClassLimit(IoClass.USER_GET, cap, 0);
                AtomicLong gets = new AtomicLong();
                IoDetail before = env.ioDetail();
                long t0 = System.nanoTime();
                runGets(db, 2, 2000, gets);
                double secs = (System.nanoTime() - t0) / 1e9;
                IoClassDetail d = env.ioDetail().minus(before).get(IoClass.USER_GET);
                // Token math (GCRA, 20 ms burst): the k-th read of the window starts no earlier than
                // t0 + (k - 1) / cap - 20 ms, so at most cap * (secs + 0.02) + 1 reads complete by the end, however
                // slow the machine. Uncapped, these Gets run at tens of thousands per second.
                long bound = (long) Math.floor(cap * (secs + CAP_BURST_SECONDS)) + 1;
                assertThat(d.ops()).as("Get reads within the cap's token bound").isLessThanOrEqualTo(bound);
                assertThat(gets.get()).as("Gets (one block read each)").isLessThanOrEqualTo(bound);
                // loose lower bound: the cap, not the machine, sets the pace (a Get takes well under 2 ms)
                assertThat(d.ops()).as("Get reads").isGreaterThan((long) (0.25 * cap * secs));
                assertThat(d.delayedOps()).isPositive();
                assertThat(env.schedulerStats().foregroundOverruns())
                        .as("no wait reached the foreground bound")
                        .isZero();
            }
        }
    }

    @Test
    void compactionIsThrottledWhileGetsAreNot() throws Exception {
        double cap = 8.0 * (1 << 20);
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("compact");
            env.registerPartition("compact", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int f = 0; f < 3; f++) {
                    fill(db, f * 3000, f * 3000 + 6000, 400); // overlapping L0 files, ~2.4 MB each
                    db.flush(fo);
                }
                pushLevels(env, "compact", db);

                for (IoClass c : List.of(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP)) {
                    env.setClassLimit(c, 0, cap);
                }
                IoDetail before = env.ioDetail();
                AtomicLong gets = new AtomicLong();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try {
                        runGets(db, 1, 1500, gets);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                long t0 = System.nanoTime();
                reader.start();
                db.compactRange();
                double secs = (System.nanoTime() - t0) / 1e9;
                reader.join();
                assertThat(failure.get()).isNull();
                IoDetail d = env.ioDetail().minus(before);
                long compacted = d.get(IoClass.COMPACTION_L0).bytes()
                        + d.get(IoClass.COMPACTION_HIGH).bytes()
                        + d.get(IoClass.COMPACTION_DEEP).bytes();
                assertThat(d.get(IoClass.COMPACTION_L0).bytes())
                        .as("L0 -> L1 is classified L0")
                        .isPositive();
                assertThat(compacted).as("read + written by the compaction").isGreaterThan(8_000_000);
                // each class is capped separately; this compaction is (almost) entirely L0 class.
                // Token math: every I/O reserves its bytes before it starts, so by the end at most
                // cap * (secs + 20 ms burst) bytes plus the last I/O (≤ one 256 KiB chunk; 1 MiB allowed) moved.
                // Unthrottled, this compaction runs at hundreds of MiB/s.
                long l0 = d.get(IoClass.COMPACTION_L0).bytes();
                assertThat(l0)
                        .as("L0 compaction bytes within the cap's token bound")
                        .isLessThanOrEqualTo((long) (cap * (secs + CAP_BURST_SECONDS)) + (1 << 20));
                // loose lower bound: the cap is reached, nothing but the compaction's own data is charged to it
                assertThat(l0 / secs).isGreaterThan(cap * 0.3);
                assertThat(d.get(IoClass.COMPACTION_L0).delayedOps()).isPositive();
                assertThat(d.get(IoClass.USER_GET).ops()).isPositive();
                assertThat(d.get(IoClass.USER_GET).delayedOps())
                        .as("Gets are never throttled")
                        .isZero();
                assertThat(d.get(IoClass.USER_GET).waitNanos()).isZero();
            }
        }
    }

    @Test
    void largeBackgroundWritesAreCutIntoChunksWhileSchedulingIsActive() throws Exception {
        withScheduledFlushes("chunks", (env, db, fo) -> {
            // RocksDB appends flush output in buffers of up to 1 MiB
            env.setChunkBytes(0);
            IoClassDetail whole = flush(env, db, fo, 0, 6000);
            assertThat(whole.ops()).as("uncut appends").isLessThan(whole.bytes() / (64 * 1024));

            env.setChunkBytes(64 * 1024);
            IoClassDetail cut = flush(env, db, fo, 10_000, 16_000);
            assertThat(cut.bytes()).isGreaterThan(2_000_000);
            assertThat(cut.ops()).as("no chunk above 64 KiB").isGreaterThanOrEqualTo(cut.bytes() / (64 * 1024));
            assertFlushed(db, 0, 10_000);
        });
    }

    @Test
    void aClassWithItsOwnChunkSizeIsCutByItAndTheOthersByTheNodes() throws Exception {
        withScheduledFlushes("class-chunks", (env, db, fo) -> {
            env.setChunkBytes(0); // the node cuts nothing
            env.setChunkBytes(IoClass.FLUSH, 16 * 1024);
            IoClassDetail cut = flush(env, db, fo, 0, 6000);
            assertThat(cut.bytes()).isGreaterThan(2_000_000);
            assertThat(cut.ops()).as("no flush chunk above 16 KiB").isGreaterThanOrEqualTo(cut.bytes() / (16 * 1024));

            env.setChunkBytes(IoClass.FLUSH, -1); // back to the node's size: not cut
            IoClassDetail whole = flush(env, db, fo, 10_000, 16_000);
            assertThat(whole.ops()).as("uncut appends").isLessThan(whole.bytes() / (64 * 1024));

            env.setChunkBytes(256 * 1024);
            env.setChunkBytes(IoClass.FLUSH, 0); // this class alone is not cut
            IoClassDetail own = flush(env, db, fo, 20_000, 26_000);
            assertThat(own.ops()).as("uncut appends").isLessThan(own.bytes() / (64 * 1024));
            assertFlushed(db, 0, 10_000, 20_000);

            assertThatThrownBy(() -> env.setChunkBytes(IoClass.WAL, 4096))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("WAL");
        });
    }

    /** What a test does with a partition whose flushes are scheduled (and so cut into chunks). */
    private interface FlushBody {
        void run(PriorityEnv env, RocksDB db, FlushOptions fo) throws Exception;
    }

    /** A fresh Env with FLUSH capped far above its rate (so scheduling, and with it chunking, is active). */
    private void withScheduledFlushes(String name, FlushBody body) throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve(name);
            env.registerPartition(name, dir);
            env.setClassLimit(IoClass.FLUSH, 0, 1L << 30);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                body.run(env, db, fo);
            }
        }
    }

    /** Writes keys [from, to) of 500 B, flushes them and returns the FLUSH I/O that took. */
    private static IoClassDetail flush(PriorityEnv env, RocksDB db, FlushOptions fo, int from, int to)
            throws Exception {
        fill(db, from, to, 500);
        IoDetail before = env.ioDetail();
        db.flush(fo);
        return env.ioDetail().minus(before).get(IoClass.FLUSH);
    }

    /** Every 101st of the 6,000 keys written from each of {@code starts} reads back. */
    private static void assertFlushed(RocksDB db, int... starts) throws Exception {
        for (int start : starts) {
            for (int i = 0; i < 6000; i += 101) {
                assertThat(db.get(key(start + i))).isEqualTo(NativeTestSupport.value(start + i, 500));
            }
        }
    }

    @Test
    void compactionRaisedToIoUserDuringAStallKeepsItsUrgency() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("stall");
            env.registerPartition("stall", dir);
            // throttle compaction hard; once writes slow down (2 L0 files) RocksDB marks compaction I/O IO_USER,
            // which must bypass the cap and be counted as urgent
            for (IoClass c : List.of(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP)) {
                env.setClassLimit(c, 0, 1 << 20);
            }
            try (Options o = options(env, true)
                            .setWriteBufferSize(1 << 20)
                            .setLevel0FileNumCompactionTrigger(3)
                            .setLevel0SlowdownWritesTrigger(2)
                            .setLevel0StopWritesTrigger(40);
                    RocksDB db = RocksDB.open(o, dir.toString())) {
                long end = System.nanoTime() + 3_000_000_000L;
                int i = 0;
                long urgent = 0;
                while (System.nanoTime() < end && urgent == 0) {
                    fill(db, i % 5000, i % 5000 + 2000, 400); // overlapping ranges: real (not trivial-move) compactions
                    i += 1700;
                    IoDetail d = env.ioDetail();
                    urgent = d.get(IoClass.COMPACTION_L0).urgentOps()
                            + d.get(IoClass.COMPACTION_HIGH).urgentOps()
                            + d.get(IoClass.COMPACTION_DEEP).urgentOps();
                }
                assertThat(urgent)
                        .as("compaction I/O marked IO_USER while writes are slowed down")
                        .isPositive();
            }
        }
    }

    private static void runGets(RocksDB db, int threads, long millis, AtomicLong count) throws Exception {
        List<Thread> ts = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long end = System.nanoTime() + millis * 1_000_000;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        db.get(key(r.nextInt(5000)));
                        count.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            t.start();
            ts.add(t);
        }
        for (Thread t : ts) {
            t.join();
        }
        assertThat(failure.get()).isNull();
    }
}
