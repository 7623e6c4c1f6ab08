package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.ConfigException;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.LsmSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADOC (§5) on real RocksDB and the priority Env's emulated device: a write flood on 4-MiB memtables whose L0→L1
 * compactions are capped at 2 MiB/s makes L0 overflow (≥ 15 files, 0.75 of the slowdown trigger); ADOC raises
 * max_background_jobs, never past its maximum, and RocksDB's own OPTIONS file — which it rewrites on every
 * SetDBOptions/SetOptions — shows the values ADOC applied last.
 */
class AdocNodeTest {
    private static final int MAX_JOBS = 6;
    private static final long MAX_BATCH = 12L << 20;

    @TempDir
    Path dir;

    record Flood(List<LsmSnapshot> ticks, List<ControlEvent> events) {}

    /**
     * Two writers at full speed on 4-MiB memtables, the emulated device (40 MiB/s writes, 20k IOPS) with {@code limitKey}
     * capped at 2 MiB/s, until ADOC applied a change to {@code knob} for {@code overflow} (at most 45 s; about 15 s on an idle 2-core machine), then 2 s more so
     * that a raise past the maximum would show.
     */
    private Flood flood(Path store, String limitKey, String knob, String overflow) throws Exception {
        return flood(store, limitKey, knob, overflow, List.of("adoc"));
    }

    /** As above with these controllers; with {@code admission} among them, also until the gate set a rate. */
    private Flood flood(Path store, String limitKey, String knob, String overflow, List<String> controls)
            throws Exception {
        SluiceConfig cfg = SluiceConfig.builder(store)
                .profile("test-small-memtables")
                .env("priority")
                .envOption("device.enabled", "true")
                .envOption("device.write.mbps", "40")
                .envOption("device.read.mbps", "200")
                .envOption("device.iops", "20000")
                .envOption("device.latency.us", "100")
                .envOption(limitKey, "2")
                .tickPeriod(Duration.ofMillis(250))
                .controls(controls)
                .controlOption("adoc", "window.seconds", "0.5")
                .controlOption("adoc", "max.background.jobs", Integer.toString(MAX_JOBS))
                .controlOption("adoc", "max.write.buffer.bytes", Long.toString(MAX_BATCH))
                .controlOption("adoc", "batch.step.bytes", Long.toString(4L << 20))
                .controlOption("adoc", "quiet.windows", "4")
                .build();
        List<LsmSnapshot> ticks = new CopyOnWriteArrayList<>();
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.defaultPartition();
            node.controlPlane().addSnapshotListener(s -> ticks.add(s.partition("default")));
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int seed = w;
                Thread t = new Thread(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    byte[] v = new byte[1000];
                    while (!stop.get()) {
                        for (int i = 0; i < v.length; i += 8) {
                            ByteBuffer.wrap(v, i, 8).putLong(rnd.nextLong());
                        }
                        p.put(
                                ByteBuffer.allocate(16)
                                        .putLong(rnd.nextLong())
                                        .putLong(seed)
                                        .array(),
                                v);
                    }
                });
                t.start();
                writers.add(t);
            }
            try {
                try {
                    await().atMost(Duration.ofSeconds(45))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> applied(node.recentEvents(), knob).stream()
                                            .anyMatch(e -> e.reason().startsWith(overflow))
                                    && (!controls.contains("admission")
                                            || node.recentEvents().stream()
                                                    .anyMatch(
                                                            e -> e.controller().equals("admission")
                                                                    && e.outcome() == ControlEvent.Outcome.APPLIED)));
                } catch (ConditionTimeoutException e) {
                    throw new AssertionError("no " + overflow + " change of " + knob
                            + "; ticks (L0 files/immutables/jobs/batch MiB, ! = stalled) " + describe(ticks)
                            + "; events " + node.recentEvents());
                }
                Thread.sleep(2000);
            } finally {
                stop.set(true);
                for (Thread t : writers) {
                    t.join();
                }
            }
            return new Flood(List.copyOf(ticks), List.copyOf(node.recentEvents()));
        }
    }

    /** Every snapshot and every applied value within [initial, maximum]; RocksDB's newest OPTIONS file = the last applied. */
    private void assertBoundedAndLive(Flood f, Path store) throws IOException {
        List<ControlEvent> jobs = applied(f.events(), "max_background_jobs");
        List<ControlEvent> batch = applied(f.events(), "write_buffer_size");
        for (ControlEvent e : jobs) {
            assertThat(value(e.action())).as(e.toString()).isBetween(2L, (long) MAX_JOBS);
        }
        for (ControlEvent e : batch) {
            assertThat(bytesOf(e)).as(e.toString()).isBetween(4L << 20, MAX_BATCH);
        }
        for (LsmSnapshot t : f.ticks()) {
            assertThat(t.maxBackgroundJobs()).isBetween(2, MAX_JOBS);
            assertThat(t.writeBufferSize()).isBetween(4L << 20, MAX_BATCH);
        }
        // Read back what RocksDB itself holds: it rewrites its OPTIONS file on every SetDBOptions/SetOptions.
        Map<String, String> live = latestOptions(store.resolve("partitions/default"));
        long lastJobs = jobs.isEmpty() ? 2 : value(jobs.get(jobs.size() - 1).action());
        long lastBatch = batch.isEmpty() ? 4L << 20 : bytesOf(batch.get(batch.size() - 1));
        assertThat(Long.parseLong(live.get("max_background_jobs")))
                .as("live max_background_jobs vs ADOC's last applied; events %s", jobs)
                .isEqualTo(lastJobs);
        assertThat(Long.parseLong(live.get("write_buffer_size")))
                .as("live write_buffer_size vs ADOC's last applied; events %s", batch)
                .isEqualTo(lastBatch);
        List<ControlEvent> subs = applied(f.events(), "max_subcompactions");
        long lastSubs = subs.isEmpty() ? 1 : value(subs.get(subs.size() - 1).action());
        assertThat(Long.parseLong(live.get("max_subcompactions")))
                .as("live max_subcompactions vs ADOC's last applied; events %s", subs)
                .isEqualTo(lastSubs);
    }

    @Test
    void anL0FloodRaisesBackgroundJobsOnTheLiveDbWithinTheMaximum() throws Exception {
        Path store = dir.resolve("l0o");
        Flood f = flood(store, "limit.compaction_l0.mbps", "max_background_jobs", "L0O");
        ControlEvent first = applied(f.events(), "max_background_jobs").stream()
                .filter(e -> e.reason().startsWith("L0O"))
                .findFirst()
                .orElseThrow();
        assertThat(first.action()).isEqualTo("max_background_jobs=4");
        assertThat(first.reason())
                .as("L0O counts from 0.75 of the slowdown trigger 20 (early.warning default)")
                .containsPattern("L0O: \\d+ L0 files >= 15")
                .contains("max_background_jobs 2 -> 4");
        assertThat(f.ticks())
                .as("the flood did overflow L0")
                .anySatisfy(t -> assertThat(t.l0Files()).isGreaterThanOrEqualTo(15));
        assertThat(f.ticks())
                .as("the node's snapshot shows the raise")
                .anySatisfy(t -> assertThat(t.maxBackgroundJobs()).isGreaterThan(2));
        ControlEvent firstSubs = applied(f.events(), "max_subcompactions").stream()
                .filter(e -> e.reason().startsWith("L0O"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no max_subcompactions change; events " + f.events()));
        assertThat(firstSubs.action())
                .as("4 jobs leave 3 compaction slots for the L0->L1 job")
                .isEqualTo("max_subcompactions=3");
        assertThat(f.ticks())
                .as("the node's snapshot shows the live max_subcompactions")
                .anySatisfy(t -> assertThat(t.maxSubcompactions()).isGreaterThan(1));
        assertBoundedAndLive(f, store);
    }

    /** Flushes capped at 2 MiB/s: memtables fill faster than they drain (MMO), ADOC grows the batch on the live DB. */
    @Test
    void aFlushBoundFloodGrowsTheBatchOnTheLiveDbWithinTheMaximum() throws Exception {
        Path store = dir.resolve("mmo");
        Flood f = flood(store, "limit.flush.mbps", "write_buffer_size", "MMO");
        ControlEvent first = applied(f.events(), "write_buffer_size").stream()
                .filter(e -> e.reason().startsWith("MMO"))
                .findFirst()
                .orElseThrow();
        assertThat(first.action()).isEqualTo("write_buffer_size=8MiB");
        assertThat(first.reason()).contains("wait for flush", "write_buffer_size 4MiB -> 8MiB");
        assertThat(f.ticks())
                .as("the snapshot's write_buffer_size, read from the live DB, shows the raise")
                .anySatisfy(t -> assertThat(t.writeBufferSize()).isGreaterThan(4L << 20));
        assertBoundedAndLive(f, store);
    }

    /**
     * {@code controls = admission, adoc} on a live node: admission sets the admission rate, ADOC the batch; they share
     * no knob, so both are applied and nothing is superseded.
     */
    @Test
    void admissionAndAdocRunTogetherWithoutSupersedingEachOther() throws Exception {
        Path store = dir.resolve("both");
        Flood f = flood(store, "limit.flush.mbps", "write_buffer_size", "MMO", List.of("admission", "adoc"));
        assertThat(f.events())
                .as("every event applied")
                .allSatisfy(e -> assertThat(e.outcome()).isEqualTo(ControlEvent.Outcome.APPLIED));
        assertThat(f.events())
                .filteredOn(e -> e.controller().equals("admission"))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.knob()).isEqualTo("default/admission_rate"));
        assertThat(f.events())
                .filteredOn(e -> e.controller().equals("adoc"))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.knob()).isIn("default/max_background_jobs", "default/write_buffer_size"));
        assertBoundedAndLive(f, store);
    }

    @Test
    void admissionAndAdocComposeAndBadOptionsAreNamed() {
        Sluice.validate(SluiceConfig.builder(dir)
                .controls(List.of("admission", "adoc"))
                .controlOption("adoc", "max.background.jobs", "8")
                .build());
        assertThatThrownBy(() -> Sluice.validate(SluiceConfig.builder(dir)
                        .controls(List.of("admission", "adoc"))
                        .controlOption("adoc", "early.warning", "0")
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("early.warning");
        assertThatThrownBy(() -> Sluice.validate(SluiceConfig.builder(dir)
                        .controls(List.of("adoc"))
                        .controlOption("adoc", "max.threads", "8")
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("max.threads");
    }

    private static List<ControlEvent> applied(List<ControlEvent> events, String knob) {
        return events.stream()
                .filter(e -> e.controller().equals("adoc")
                        && e.knob().endsWith("/" + knob)
                        && e.outcome() == ControlEvent.Outcome.APPLIED)
                .toList();
    }

    private static String describe(List<LsmSnapshot> ticks) {
        StringBuilder b = new StringBuilder();
        for (LsmSnapshot t : ticks) {
            b.append(String.format(
                    " %d/%d/%d/%dM%s",
                    t.l0Files(),
                    t.immutableMemtables(),
                    t.maxBackgroundJobs(),
                    t.writeBufferSize() >> 20,
                    t.stalled() ? "!" : ""));
        }
        return b.toString();
    }

    private static long value(String action) {
        return Long.parseLong(action.substring(action.indexOf('=') + 1));
    }

    /** write_buffer_size=8MiB → bytes (ADOC's steps are whole MiB here). */
    private static long bytesOf(ControlEvent e) {
        String v = e.action().substring(e.action().indexOf('=') + 1);
        assertThat(v).as(e.toString()).endsWith("MiB");
        return Math.round(Double.parseDouble(v.substring(0, v.length() - 3)) * (1 << 20));
    }

    /** key=value pairs of the newest OPTIONS-NNNNNN file (DBOptions and the default column family). */
    private static Map<String, String> latestOptions(Path db) throws IOException {
        Path newest;
        try (Stream<Path> files = Files.list(db)) {
            newest = files.filter(f -> f.getFileName().toString().matches("OPTIONS-\\d+"))
                    .max(Comparator.comparingLong(
                            f -> Long.parseLong(f.getFileName().toString().substring(8))))
                    .orElseThrow();
        }
        Map<String, String> m = new TreeMap<>();
        for (String line : Files.readAllLines(newest)) {
            String t = line.strip();
            int eq = t.indexOf('=');
            if (eq > 0 && !t.startsWith("#") && !t.startsWith("[")) {
                m.putIfAbsent(t.substring(0, eq).strip(), t.substring(eq + 1).strip());
            }
        }
        return m;
    }
}
