package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.RocksDB;

/** {@link LsmSnapshot#l0MergeProgress} on real RocksDB: reported while an L0 merge runs, -1 when none does. */
class MergeProgressTest {
    @TempDir
    Path dir;

    SluiceNode node;

    @BeforeEach
    void open() {
        node = Sluice.open(SluiceConfig.builder(dir).env("default").build());
    }

    @AfterEach
    void close() {
        node.close();
    }

    @Test
    void progressOfARunningL0MergeIsSampledAndAbsentOtherwise() throws Exception {
        RocksDB db = ((RocksPartition) node.defaultPartition()).db();
        db.setOptions(MutableColumnFamilyOptions.builder()
                .setWriteBufferSize(8 << 20)
                .setLevel0FileNumCompactionTrigger(4)
                .build());
        Partition p = node.defaultPartition();
        assertThat(node.sample().partition("default").l0MergeProgress()).isEqualTo(-1);
        Random rnd = new Random(7);
        byte[] v = new byte[1000];
        List<Double> seen = new ArrayList<>();
        for (int file = 0; file < 4; file++) {
            for (int i = 0; i < 8_000; i++) {
                rnd.nextBytes(v);
                p.put(String.format("k%09d", rnd.nextInt(1_000_000_000)).getBytes(), v);
            }
            p.flush();
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            LsmSnapshot s = node.sample().partition("default");
            if (s.runningCompactions() == 0 && s.l0Files() < 4) {
                break;
            }
            seen.add(s.l0MergeProgress());
            Thread.sleep(2);
        }
        assertThat(seen).as("progress samples while the L0 merge ran").anyMatch(x -> x >= 0 && x <= 1);
        assertThat(seen).allMatch(x -> x == -1 || (x >= 0 && x <= 1));
        awaitIdle();
        assertThat(node.sample().partition("default").l0MergeProgress()).isEqualTo(-1);
    }

    private void awaitIdle() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (node.sample().partition("default").runningCompactions() > 0) {
            assertThat(System.nanoTime()).as("compactions finished").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
