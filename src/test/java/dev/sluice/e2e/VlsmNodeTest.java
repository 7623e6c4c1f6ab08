package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vLSM's FIFO L0 (vLSM §4.1) composed with CruiseDB admission and the priority Env (CruiseDB I/O policy, emulated
 * device), on real RocksDB: the {@code vlsm} shape at 512-KiB SSTs, a write flood from two writers. The controllers set
 * disjoint knobs (no SUPERSEDED event), every FIFO move names one L0 file, RocksDB's L0 trigger stays raised while
 * {@code vlsm-l0} runs, the Env classifies the moves' I/O as L0 compaction, and every acknowledged write is there.
 */
class VlsmNodeTest {
    @TempDir
    Path dir;

    @Test
    void fifoMovesComposeWithAdmissionAndThePriorityEnv() throws Exception {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .profile("test-vlsm-small")
                .env("priority")
                .envOption("policy", "cruisedb")
                .envOption("device.enabled", "true")
                .envOption("device.write.mbps", "40")
                .envOption("device.read.mbps", "200")
                .envOption("device.iops", "20000")
                .envOption("device.latency.us", "100")
                .tickPeriod(Duration.ofMillis(100))
                .controls(List.of("admission", "vlsm-l0"))
                .controlOption("admission", "warmup.seconds", "1")
                .controlOption("admission", "period.seconds", "1")
                .build();
        List<LsmSnapshot> ticks = new CopyOnWriteArrayList<>();
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.defaultPartition();
            node.controlPlane().addSnapshotListener(s -> ticks.add(s.partition("default")));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong next = new AtomicLong();
            List<long[]> acked = new CopyOnWriteArrayList<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                Thread t = new Thread(() -> {
                    while (!stop.get()) {
                        long i = next.getAndIncrement();
                        while (!stop.get()) {
                            try {
                                p.put(key(i), value(i));
                                acked.add(new long[] {i});
                                break;
                            } catch (OverloadedException e) {
                                LockSupport.parkNanos(1_000_000);
                            }
                        }
                    }
                });
                writers.add(t);
                t.start();
            }
            try {
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> applied(node, "vlsm-l0", "compact_files").size() >= 20
                                && !applied(node, "admission", "admission_rate").isEmpty());
            } finally {
                stop.set(true);
                for (Thread t : writers) {
                    t.join();
                }
            }
            List<ControlEvent> moves = applied(node, "vlsm-l0", "compact_files");
            assertThat(moves)
                    .allSatisfy(e -> assertThat(e.action())
                            .as("one L0 file per move")
                            .matches("compact_files \\[\\d{6}\\.sst\\] -> L1"));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> node.recentEvents().stream()
                                    .filter(e -> e.controller().equals("manual-compaction")
                                            && e.outcome() == ControlEvent.Outcome.APPLIED)
                                    .count()
                            >= 15);
            assertThat(node.recentEvents())
                    .as("admission and vlsm-l0 set disjoint knobs")
                    .noneMatch(e -> e.outcome() == ControlEvent.Outcome.SUPERSEDED);
            LsmSnapshot last = node.sample().partition("default");
            assertThat(last.l0CompactionTrigger())
                    .as("RocksDB's own L0 compaction held back while vlsm-l0 runs")
                    .isEqualTo(last.l0SlowdownTrigger());
            assertThat(node.sample().io().get(IoClass.COMPACTION_L0).bytes())
                    .as("the moves' I/O is L0 compaction I/O for the Env")
                    .isGreaterThan(0);
            assertThat(ticks.stream()
                            .mapToInt(s -> s.levels().get(1).fileCount())
                            .max()
                            .orElse(0))
                    .as("L1 built of several SSTs")
                    .isGreaterThan(1);
            assertThat(acked).hasSizeGreaterThan(5_000);
            for (long[] a : acked) {
                assertThat(p.get(key(a[0]))).as("key %d", a[0]).isEqualTo(value(a[0]));
            }
        }
    }

    private static List<ControlEvent> applied(SluiceNode node, String controller, String actionPrefix) {
        return node.recentEvents().stream()
                .filter(e -> e.controller().equals(controller)
                        && e.outcome() == ControlEvent.Outcome.APPLIED
                        && e.action().startsWith(actionPrefix))
                .toList();
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(16)
                .putLong(Long.reverse(i) ^ 0x5DEECE66DL)
                .putLong(i)
                .array();
    }

    private static byte[] value(long i) {
        byte[] v = new byte[1000];
        ByteBuffer b = ByteBuffer.wrap(v);
        for (int k = 0; k < v.length / 8; k++) {
            b.putLong(i * 31 + k);
        }
        return v;
    }
}
