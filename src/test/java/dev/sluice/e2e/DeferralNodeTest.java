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
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FlexEngine's two-stage deferral (§4.3) on real RocksDB and the priority Env's emulated device (6 MiB/s writes): a
 * slow writer builds a tree down to L2, then a fast one squeezes the device above the 80 % watermark. Deep compactions
 * stop (the files below L1 stay exactly as they were) while L0→L1 runs by hand, then L0 reaches 60 % of its slowdown
 * trigger and intra-L0 merges run; once the writer stops and the device calms, automatic compactions resume and work
 * the deferred debt off (files below L1 change again). Every key reads back its newest value (a quarter of the writes
 * overwrite older keys, so reordered versions would show).
 */
class DeferralNodeTest {
    private static final String CTL = "deferral";

    @TempDir
    Path dir;

    @Test
    void deepCompactionsStopThenIntraL0MergesRunThenEverythingResumes() throws InterruptedException {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .profile("test-deferral")
                .env("priority")
                .envOption("device.enabled", "true")
                .envOption("device.write.mbps", "6")
                .envOption("device.read.mbps", "200")
                .envOption("device.iops", "20000")
                .envOption("device.latency.us", "100")
                .tickPeriod(Duration.ofMillis(200))
                .controls(List.of(CTL))
                .controlOption(CTL, "low", "0.3")
                .controlOption(CTL, "resume.ticks", "5")
                .controlOption(CTL, "l0.files", "2")
                .controlOption(CTL, "resume.hold.s", "300")
                .build();
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.defaultPartition();
            List<LsmSnapshot> ticks = new CopyOnWriteArrayList<>();
            List<Double> use = new CopyOnWriteArrayList<>();
            node.controlPlane().addSnapshotListener(s -> {
                ticks.add(s.partition("default"));
                use.add(s.deviceBudgetUse());
            });
            AtomicLong written = new AtomicLong();
            // key -> the write number of its newest value; every 4th write overwrites an older key, so a merge that
            // reordered versions (an older value shadowing a newer one) would show when reading back
            Map<Long, Long> newest = new ConcurrentHashMap<>();
            AtomicLong rate = new AtomicLong(400); // puts/s of 1 KiB
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                long next = System.nanoTime();
                while (!stop.get()) {
                    long i = written.get();
                    long k = i % 4 == 3 ? i / 2 : i;
                    p.put(key(k), value(i));
                    newest.put(k, i);
                    written.incrementAndGet();
                    next += 1_000_000_000L / rate.get();
                    long ahead = next - System.nanoTime();
                    if (ahead > 0) {
                        LockSupport.parkNanos(ahead);
                    }
                }
            });
            writer.start();
            ControlEvent stage1, stage2, resumed;
            try {
                // Warm-up: a slow writer builds a tree with files below L1.
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !deep(node.sample().partition("default")).isEmpty());
                rate.set(8000); // as fast as the WAL allows: WAL + flush + compaction exceed 80 % of 6 MiB/s
                stage1 = await().atMost(Duration.ofSeconds(60))
                        .until(() -> stage(node, 1), Optional::isPresent)
                        .orElseThrow(() -> new AssertionError("no stage 1; device use " + use));
                // stage 2 needs L0 to build up behind the stopped L0->L1 merges; under a loaded 2-core build (./mvnw
                // verify at 63e7d9f) that took over 90 s once, alone it takes well under
                stage2 = await().atMost(Duration.ofSeconds(180))
                        .until(() -> stage(node, 2), Optional::isPresent)
                        .orElseThrow(() -> new AssertionError("no stage 2: " + describe(ticks)));
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> manual(node, "-> L0").isPresent());
            } finally {
                stop.set(true);
                writer.join();
            }
            resumed = await().atMost(Duration.ofSeconds(120))
                    .until(() -> stage(node, 0), Optional::isPresent)
                    .orElseThrow(() -> new AssertionError("no resume; device use " + use));
            assertThat(stage1.reason()).contains("node I/O use", ">= high 0.80", "Eq. 3 budget");
            assertThat(stage2.reason()).contains("stall trigger 10", "60%");
            assertThat(resumed.reason()).contains("<= low 0.30");

            // L0->L1 ran by hand during the suspension, and intra-L0 merges after stage 2 began.
            ControlEvent l0l1 = manual(node, "-> L1").orElseThrow(() -> new AssertionError(events(node)));
            assertThat(l0l1.tickerNanos()).isGreaterThan(stage1.tickerNanos());
            ControlEvent intra = manual(node, "-> L0").orElseThrow();
            assertThat(intra.tickerNanos()).isGreaterThan(stage2.tickerNanos());

            // Deep compactions stopped: once the compactions below L1 running at the suspension had ended, the files
            // below L1 stayed exactly the same until the resume.
            List<LsmSnapshot> suspended = ticks.stream()
                    .filter(t -> t.timeNanos() > stage1.tickerNanos() && t.timeNanos() < resumed.tickerNanos())
                    .toList();
            int settled = -1;
            for (int i = 0; i < suspended.size(); i++) {
                if (deepBusy(suspended.get(i)) == 0) {
                    settled = i;
                    break;
                }
            }
            assertThat(settled)
                    .as("the deep compactions running at the suspension ended")
                    .isNotNegative();
            Set<String> frozen = deep(suspended.get(settled));
            for (LsmSnapshot t : suspended.subList(settled, suspended.size())) {
                assertThat(t.autoCompactionsDisabled()).isTrue();
                assertThat(deep(t)).as("files below L1 at %d ns", t.timeNanos()).isEqualTo(frozen);
            }
            assertThat(suspended.size() - settled)
                    .as("ticks with deep compactions held")
                    .isGreaterThan(5);

            // Resume: automatic compactions are back and work the deferred debt off below L1.
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> !deep(node.sample().partition("default")).equals(frozen));
            NodeSnapshot after = node.sample();
            assertThat(after.partition("default").autoCompactionsDisabled()).isFalse();
            assertThat(after.partition("default").softPendingLimit())
                    .as("stall limit restored")
                    .isPositive();

            long n = written.get();
            assertThat(n).isGreaterThan(20_000);
            for (Map.Entry<Long, Long> e : newest.entrySet()) {
                assertThat(p.get(key(e.getKey())))
                        .as("key %d (newest write %d)", e.getKey(), e.getValue())
                        .isEqualTo(value(e.getValue()));
            }
        }
    }

    private static Set<String> deep(LsmSnapshot s) {
        Set<String> names = new TreeSet<>();
        for (LevelInfo l : s.levels()) {
            if (l.level() >= 2) {
                for (SstFile f : l.files()) {
                    names.add(f.name());
                }
            }
        }
        return names;
    }

    private static long deepBusy(LsmSnapshot s) {
        return s.levels().stream()
                .filter(l -> l.level() >= 2)
                .flatMap(l -> l.files().stream())
                .filter(SstFile::beingCompacted)
                .count();
    }

    private static Optional<ControlEvent> stage(SluiceNode node, int stage) {
        return first(node, e -> e.controller().equals(CTL) && e.action().equals("deferral_stage=" + stage));
    }

    private static Optional<ControlEvent> manual(SluiceNode node, String suffix) {
        return first(
                node,
                e -> e.controller().equals("manual-compaction") && e.action().endsWith(suffix));
    }

    private static Optional<ControlEvent> first(SluiceNode node, Predicate<ControlEvent> p) {
        return node.recentEvents().stream()
                .filter(e -> e.outcome() == ControlEvent.Outcome.APPLIED)
                .filter(p)
                .findFirst();
    }

    private static String events(SluiceNode node) {
        StringBuilder b = new StringBuilder();
        for (ControlEvent e : node.recentEvents()) {
            b.append('\n')
                    .append(e.controller())
                    .append(' ')
                    .append(e.action())
                    .append(' ')
                    .append(e.outcome())
                    .append(' ')
                    .append(e.detail());
        }
        return b.toString();
    }

    private static String describe(List<LsmSnapshot> ticks) {
        StringBuilder b = new StringBuilder();
        for (LsmSnapshot t : ticks) {
            b.append(t.l0Files()).append(t.autoCompactionsDisabled() ? "d " : " ");
        }
        return b.toString();
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
}
