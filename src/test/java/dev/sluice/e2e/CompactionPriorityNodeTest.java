package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CruiseDB's compaction priority (§VI-B) on real RocksDB and the priority Env: a base level grown past 5× its target
 * while a memory→L1 merge holds all of its files is compacted before the next memory→L1 merge starts.
 *
 * <p>Set-up: the {@code test-tiny-levels} profile (transit L0, L1 target 1 MiB) and the Env capping L0 compaction I/O
 * at 4 MiB/s, so L0→L1 merges lag behind a 6 MiB/s writer, L0's score stays above L1's and RocksDB keeps merging into
 * L1 — the situation CruiseDB's rule is for. Writing stops once the controller pauses automatic compactions.
 */
class CompactionPriorityNodeTest {
    private static final String CTL = "cruise-compaction-priority";

    @TempDir
    Path dir;

    @Test
    void anOversizedBaseLevelGoesBeforeTheNextMemoryToL1Merge() throws InterruptedException {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .profile("test-tiny-levels")
                .env("priority")
                .envOption("limit.compaction_l0.mbps", "4")
                .tickPeriod(Duration.ofMillis(100))
                .controls(List.of(CTL))
                .controlOption(CTL, "hold.seconds", "60")
                .build();
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.defaultPartition();
            List<LsmSnapshot> ticks = new CopyOnWriteArrayList<>();
            node.controlPlane().addSnapshotListener(s -> ticks.add(s.partition("default")));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            Thread writer = new Thread(() -> {
                long start = System.nanoTime();
                while (!stop.get()) {
                    long i = written.get();
                    p.put(key(i), value(i));
                    written.incrementAndGet();
                    long due = start + i * 1_000_000_000L / 6_000; // 6,000 puts/s of 1 KB
                    long ahead = due - System.nanoTime();
                    if (ahead > 0) {
                        LockSupport.parkNanos(ahead);
                    }
                }
            });
            writer.start();
            ControlEvent off;
            try {
                off = await().atMost(Duration.ofSeconds(90))
                        .until(() -> find(node, e -> e.action().equals("auto_compactions=off")), Optional::isPresent)
                        .orElseThrow();
            } finally {
                stop.set(true);
                writer.join();
            }
            assertThat(off.reason()).contains("every file of it is in a running compaction");
            ControlEvent on = await().atMost(Duration.ofSeconds(90))
                    .until(() -> find(node, e -> e.action().equals("auto_compactions=on")), Optional::isPresent)
                    .orElseThrow();
            ControlEvent batch = find(
                            node, e -> e.action().startsWith("compact_files") && e.tickerNanos() >= off.tickerNanos())
                    .orElseThrow(
                            () -> new AssertionError("no prioritized compaction after the pause: " + events(node)));
            assertThat(on.reason()).as(events(node)).contains("prioritized compaction started");
            assertThat(batch.tickerNanos()).isBetween(off.tickerNanos(), on.tickerNanos());
            assertThat(batch.action()).endsWith("-> L2");
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> node.recentEvents().stream()
                            .anyMatch(e -> e.controller().equals("manual-compaction")
                                    && e.outcome() == ControlEvent.Outcome.APPLIED));

            // While paused, no memory->L1 merge started: the L0 files in a running compaction were only ever those
            // the merge running at the pause had taken.
            LsmSnapshot atPause = lastAtOrBefore(ticks, off.tickerNanos());
            Set<String> merging = busyL0(atPause);
            assertThat(merging).as("a merge held L0 files when the pause began").isNotEmpty();
            for (LsmSnapshot t : ticks) {
                if (t.timeNanos() > off.tickerNanos() && t.timeNanos() <= batch.tickerNanos()) {
                    assertThat(merging)
                            .as("L0 files in compactions at %d ns", t.timeNanos())
                            .containsAll(busyL0(t));
                    assertThat(t.autoCompactionsDisabled()).isTrue();
                }
            }
            LsmSnapshot atBatch = lastAtOrBefore(ticks, batch.tickerNanos());
            LevelInfo l1 = atBatch.levels().get(1);
            assertThat(l1.score()).as("L1 when its compaction was issued").isGreaterThan(5);
            assertThat(node.sample().partition("default").autoCompactionsDisabled())
                    .as("automatic compactions are on again")
                    .isFalse();

            // Nothing acknowledged was lost.
            long n = written.get();
            assertThat(n).isGreaterThan(10_000);
            for (long i = 0; i < n; i++) {
                assertThat(p.get(key(i))).as("key %d", i).isEqualTo(value(i));
            }
        }
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(16)
                .putLong(Long.reverse(i) ^ 0x5DEECE66DL)
                .putLong(i)
                .array();
    }

    private static byte[] value(long i) {
        byte[] v = new byte[1024];
        ByteBuffer b = ByteBuffer.wrap(v);
        for (int k = 0; k < v.length / 8; k++) {
            b.putLong(i * 31 + k);
        }
        return v;
    }

    private static Optional<ControlEvent> find(SluiceNode node, Predicate<ControlEvent> p) {
        return node.recentEvents().stream()
                .filter(e -> e.controller().equals(CTL) && e.outcome() == ControlEvent.Outcome.APPLIED)
                .filter(p)
                .findFirst();
    }

    private static String events(SluiceNode node) {
        return node.recentEvents().stream()
                .map(e -> e.controller() + " " + e.action() + " " + e.outcome() + " (" + e.reason() + ") " + e.detail())
                .collect(Collectors.joining("\n"));
    }

    private static LsmSnapshot lastAtOrBefore(List<LsmSnapshot> ticks, long nanos) {
        LsmSnapshot last = null;
        for (LsmSnapshot t : ticks) {
            if (t.timeNanos() <= nanos) {
                last = t;
            }
        }
        assertThat(last).as("a tick at or before %d", nanos).isNotNull();
        return last;
    }

    private static Set<String> busyL0(LsmSnapshot s) {
        return s.levels().get(0).files().stream()
                .filter(SstFile::beingCompacted)
                .map(SstFile::name)
                .collect(Collectors.toSet());
    }
}
