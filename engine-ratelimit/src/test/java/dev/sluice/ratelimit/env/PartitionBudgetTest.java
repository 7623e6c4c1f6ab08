package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.NodeSnapshot;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * FlexEngine's partition level on real RocksDB with two partitions: each file's I/O is charged to its partition (and
 * reaches that partition's snapshot), and a partition's background budget delays only that partition's flushes.
 */
class PartitionBudgetTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void eachPartitionsIoReachesItsOwnSnapshot() {
        try (SluiceNode node = Sluice.open(SluiceConfig.builder(tmp.resolve("node"))
                .partitions("a", "b")
                .env("priority")
                .build())) {
            Partition a = node.partition("a");
            java.util.Random rnd = new java.util.Random(1);
            for (int i = 0; i < 2000; i++) {
                byte[] v = new byte[200];
                rnd.nextBytes(v); // incompressible: the flushed file holds them all
                a.put(("k" + i).getBytes(), v);
            }
            a.flush();
            NodeSnapshot s = node.sample();
            IoStats ioA = s.partition("a").io();
            IoStats ioB = s.partition("b").io();
            assertThat(ioA.source()).isEqualTo(IoStats.Source.ENV);
            assertThat(ioA.get(IoClass.WAL).bytes()).isGreaterThan(2000L * 200);
            assertThat(ioA.get(IoClass.FLUSH).bytes()).isGreaterThan(2000L * 200);
            assertThat(ioB.get(IoClass.WAL).bytes()).isZero();
            assertThat(ioB.get(IoClass.FLUSH).bytes()).isZero();
            assertThat(ioB.get(IoClass.META).ops()).as("b's open").isPositive();
        }
    }

    @Test
    void aPartitionsBackgroundBudgetDelaysOnlyItsOwnBackgroundIo() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path d1 = tmp.resolve("one");
            Path d2 = tmp.resolve("two");
            env.registerPartition("one", d1);
            env.registerPartition("two", d2);
            double rate = 8 * 1024 * 1024; // 8 MiB/s for partition one's flush and compaction
            env.setPartitionBackgroundLimit("one", rate);
            try (Options o = options(env, false);
                    RocksDB db1 = RocksDB.open(o, d1.toString());
                    RocksDB db2 = RocksDB.open(o, d2.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                fill(db1, 0, 8000, 500); // ~4 MB each
                fill(db2, 0, 8000, 500);
                db1.flush(fo);
                db2.flush(fo);
                IoClassStats one = env.ioStats("one").orElseThrow().get(IoClass.FLUSH);
                IoClassStats two = env.ioStats("two").orElseThrow().get(IoClass.FLUSH);
                assertThat(one.bytes()).isGreaterThan(4_000_000L);
                assertThat(two.bytes()).isGreaterThan(4_000_000L);
                // GCRA at 8 MiB/s with 20 ms of burst: every byte after the first request (a flush writes through a
                // buffer of at most 1 MiB) and the burst waits its turn
                long minWait = (long) (((one.bytes() - (1 << 20)) / rate - 0.02) * 1e9);
                assertThat(one.waitNanos()).isGreaterThanOrEqualTo(minWait);
                assertThat(two.waitNanos())
                        .as("partition two has no budget: never waits")
                        .isZero();
                assertThat(env.ioStats("one").orElseThrow().get(IoClass.WAL).waitNanos())
                        .as("foreground I/O is not under the background budget")
                        .isZero();

                env.setPartitionBackgroundLimit("one", 0); // removed
                fill(db1, 10_000, 18_000, 500);
                db1.flush(fo);
                assertThat(env.ioStats("one").orElseThrow().get(IoClass.FLUSH).waitNanos())
                        .isEqualTo(one.waitNanos());
            }
            assertThatThrownBy(() -> env.setPartitionBackgroundLimit("three", 1))
                    .hasMessageContaining("partition 'three' is not registered");
        }
    }
}
