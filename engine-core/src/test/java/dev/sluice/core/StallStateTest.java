package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.StallCondition;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.RocksDB;

/**
 * The snapshot's stall state on real RocksDB: a write stop and a write delay, each brought about by pausing background
 * work while the memtables fill, and the return to NORMAL once the flushes run. Before the sampler read the write
 * controller, the state came from the last {@code onStallConditionsChanged} callback, and the stop test failed: it kept
 * reading STOPPED after the stop ended.
 */
class StallStateTest {
    @TempDir
    Path dir;

    SluiceNode node;
    RocksDB db;
    boolean paused;

    @BeforeEach
    void open() {
        node = Sluice.open(
                SluiceConfig.builder(dir.resolve("node")).env("default").build());
        db = ((RocksPartition) node.defaultPartition()).db();
    }

    @AfterEach
    void close() throws Exception {
        if (paused) {
            db.continueBackgroundWork(); // a paused DB would hang close()
        }
        node.close();
    }

    private StallCondition stall() {
        return node.sample().partition("default").stall();
    }

    @Test
    void stopIsReportedWhileItLastsAndNormalAfterIt() throws Exception {
        db.setOptions(MutableColumnFamilyOptions.builder()
                .setWriteBufferSize(64 << 10)
                .setMaxWriteBufferNumber(2)
                .build());
        assertThat(stall()).isEqualTo(StallCondition.NORMAL);
        pause(true);
        Partition p = node.defaultPartition();
        Thread writer = new Thread(() -> {
            byte[] v = new byte[1024];
            for (int i = 0; i < 1000; i++) {
                p.put(("k" + i).getBytes(), v);
            }
        });
        writer.start();
        awaitTrue(() -> property("rocksdb.is-write-stopped") == 1, "writes stopped");
        assertThat(stall()).isEqualTo(StallCondition.STOPPED);

        pause(false);
        writer.join(30_000);
        assertThat(writer.isAlive()).as("writer finished once flushes ran").isFalse();
        awaitTrue(() -> property("rocksdb.num-immutable-mem-table") == 0, "flushes done");
        assertThat(stall()).isEqualTo(StallCondition.NORMAL);
    }

    @Test
    void delayIsReportedWhileItLastsAndNormalAfterIt() throws Exception {
        // With more than 3 write buffers RocksDB delays (not stops) writes once max - 1 memtables are unflushed.
        db.setOptions(MutableColumnFamilyOptions.builder()
                .setWriteBufferSize(64 << 10)
                .setMaxWriteBufferNumber(6)
                .build());
        pause(true);
        Partition p = node.defaultPartition();
        byte[] v = new byte[1024];
        int i = 0;
        while (property("rocksdb.actual-delayed-write-rate") == 0) {
            assertThat(i).as("a delay began within 1000 puts").isLessThan(1000);
            p.put(("k" + i++).getBytes(), v);
        }
        assertThat(property("rocksdb.is-write-stopped")).isZero();
        assertThat(stall()).isEqualTo(StallCondition.DELAYED);

        pause(false);
        awaitTrue(() -> property("rocksdb.num-immutable-mem-table") == 0, "flushes done");
        assertThat(stall()).isEqualTo(StallCondition.NORMAL);
    }

    private void pause(boolean pause) throws Exception {
        if (pause) {
            db.pauseBackgroundWork();
        } else {
            db.continueBackgroundWork();
        }
        paused = pause;
    }

    private long property(String name) {
        return longProperty(db, name);
    }

    private static long longProperty(RocksDB db, String name) {
        try {
            return db.getLongProperty(name);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting for: " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
