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

/**
 * {@link LsmSnapshot#l0MergeProgress} and {@link LsmSnapshot#intraL0MergeBytes}: the thread-status arithmetic on
 * scripted jobs, and the progress on real RocksDB (reported while an L0 merge runs, -1 when none does).
 */
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

    /** Thread-status properties of a compaction: [1] = input level << 32 | output level, [3] total, [4] read. */
    static PartitionSampler.CompactionThread job(String db, int in, int out, long total, long read) {
        return new PartitionSampler.CompactionThread(db, new long[] {0, ((long) in << 32) | out, 0, total, read});
    }

    @Test
    void intraL0JobsCountAsUndrainedInputNotAsProgress() {
        long mb = 1 << 20;
        PartitionSampler.L0Merges m = PartitionSampler.l0Merges(
                List.of(
                        job("/d", 0, 5, 400 * mb, 100 * mb), // L0 -> L5, thread saw 100 of 400 (x2 subcompactions)
                        job("/d", 0, 0, 250 * mb, 200 * mb), // intra-L0: its output stays in L0
                        job("/d", 5, 6, 900 * mb, 10 * mb), // not an L0 job
                        job("/other", 0, 1, 100 * mb, 100 * mb)), // another partition
                "/d",
                2);
        assertThat(m.progress()).isEqualTo(0.5);
        assertThat(m.intraL0Bytes()).isEqualTo(250 * mb);

        PartitionSampler.L0Merges onlyIntra =
                PartitionSampler.l0Merges(List.of(job("/d", 0, 0, 250 * mb, 249 * mb)), "/d", 2);
        assertThat(onlyIntra.progress()).as("no merge into a deeper level runs").isEqualTo(-1);
        assertThat(onlyIntra.intraL0Bytes()).isEqualTo(250 * mb);

        PartitionSampler.L0Merges capped =
                PartitionSampler.l0Merges(List.of(job("/d", 0, 1, 100 * mb, 80 * mb)), "/d", 2);
        assertThat(capped.progress())
                .as("n x the thread's share, capped at the input")
                .isEqualTo(1.0);
        assertThat(PartitionSampler.l0Merges(List.of(), "/d", 2)).isEqualTo(PartitionSampler.L0Merges.NONE);
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
