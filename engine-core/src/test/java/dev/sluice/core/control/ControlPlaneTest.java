package dev.sluice.core.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.common.base.Ticker;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.sensor.LsmSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control plane on a real node (real RocksDB, real actuators) with a fake ticker and scripted controllers. */
class ControlPlaneTest {
    @TempDir
    Path dir;

    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final Ticker fake = new Ticker() {
        @Override
        public long read() {
            return now.get();
        }
    };
    SluiceNode node;

    @BeforeEach
    void reset() {
        ScriptedLoopProvider.SCRIPTS.values().forEach(List::clear);
        ScriptedLoopProvider.SEEN_TIMES.clear();
    }

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private SluiceNode open(SluiceConfig.Builder b) {
        // A long tick period: the test drives ticks itself with tickOnce().
        node = Sluice.open(
                b.env("default").tickPeriod(Duration.ofSeconds(60)).build(), new SimpleMeterRegistry(), fake);
        return node;
    }

    @Test
    void actionsAreAppliedToRocksDbAndRecordedAsEvents() {
        open(SluiceConfig.builder(dir).partitions("t1", "t2").controls("scripted-a"));
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-a")
                .add((s, t) -> List.of(
                        new Action.SetWriteBufferSize("t1", 8 << 20, "test: smaller batches"),
                        new Action.SetL0Triggers("t2", 2, 10, 30, "test: triggers"),
                        new Action.SetMaxBackgroundJobs("t1", 4, "test: more threads")));
        List<ControlEvent> events = node.controlPlane().tickOnce();
        assertThat(events).extracting(ControlEvent::outcome).containsOnly(ControlEvent.Outcome.APPLIED);
        assertThat(events).extracting(ControlEvent::controller).containsOnly("scripted-a");
        assertThat(ScriptedLoopProvider.SEEN_TIMES).containsExactly(1_000_000_000L);

        ScriptedLoopProvider.SCRIPTS.get("scripted-a").clear();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        node.controlPlane().tickOnce();
        LsmSnapshot t1 = node.latestSnapshot().partition("t1");
        LsmSnapshot t2 = node.latestSnapshot().partition("t2");
        assertThat(t1.writeBufferSize()).isEqualTo(8 << 20);
        assertThat(t1.maxBackgroundJobs()).isEqualTo(4);
        assertThat(t2.writeBufferSize()).isEqualTo(64 << 20);
        assertThat(t2.l0SlowdownTrigger()).isEqualTo(10);
        assertThat(t2.l0StopTrigger()).isEqualTo(30);
        assertThat(t1.intervalNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(node.recentEvents()).hasSize(3);
        assertThat(node.meterRegistry()
                        .find("sluice.control.events")
                        .tag("outcome", "APPLIED")
                        .counters())
                .isNotEmpty();
    }

    @Test
    void firstControllerInTheListWinsAKnobAndTheOtherIsSuperseded() {
        open(SluiceConfig.builder(dir).controls("scripted-b", "scripted-a"));
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-a")
                .add((s, t) -> List.of(new Action.SetWriteBufferSize("default", 32 << 20, "a")));
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-b")
                .add((s, t) -> List.of(new Action.SetWriteBufferSize("default", 16 << 20, "b")));
        List<ControlEvent> events = node.controlPlane().tickOnce();
        assertThat(events)
                .extracting(ControlEvent::controller, ControlEvent::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("scripted-b", ControlEvent.Outcome.APPLIED),
                        org.assertj.core.groups.Tuple.tuple("scripted-a", ControlEvent.Outcome.SUPERSEDED));
        assertThat(node.sample().partition("default").writeBufferSize()).isEqualTo(16 << 20);
    }

    @Test
    void refusedActionsAndThrowingControllersBecomeFailedEventsAndOthersStillRun() {
        open(SluiceConfig.builder(dir).controls("scripted-a", "scripted-b"));
        ScriptedLoopProvider.SCRIPTS.get("scripted-a").add((s, t) -> {
            throw new IllegalStateException("boom");
        });
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-b")
                .add((s, t) -> List.of(
                        new Action.SetAdmissionRate("default", 100, "no gate installed"),
                        new Action.SetL0Triggers("default", 10, 5, 1, "inconsistent"),
                        new Action.SetWriteBufferSize("nope", 1 << 20, "unknown partition"),
                        new Action.SetAutoCompactions("default", false, "fine")));
        List<ControlEvent> events = node.controlPlane().tickOnce();
        assertThat(events).hasSize(5);
        assertThat(events.get(0).outcome()).isEqualTo(ControlEvent.Outcome.FAILED);
        assertThat(events.get(0).detail()).contains("boom");
        assertThat(events.get(1).detail()).contains("no admission gate");
        assertThat(events.get(2).detail()).contains("compaction <= slowdown <= stop");
        assertThat(events.get(3).detail()).contains("no partition 'nope'");
        assertThat(events.get(4).outcome()).isEqualTo(ControlEvent.Outcome.APPLIED);
        assertThat(node.sample().partition("default").autoCompactionsDisabled()).isTrue();
    }

    @Test
    void eventsGoToAJsonLinesFileAndTheRingIsBounded() throws Exception {
        Path file = dir.resolve("events/events.jsonl");
        open(SluiceConfig.builder(dir.resolve("store"))
                .controls("scripted-a")
                .controlEventsCapacity(16)
                .controlEventsFile(file));
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-a")
                .add((s, t) -> List.of(new Action.SetCompactionConcurrency("default", 1, "why")));
        for (int i = 0; i < 20; i++) {
            node.controlPlane().tickOnce();
        }
        assertThat(node.recentEvents()).hasSize(16);
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(20);
        assertThat(lines.get(0))
                .contains("\"controller\":\"scripted-a\"")
                .contains("\"outcome\":\"APPLIED\"")
                .contains("compaction_concurrency=1");
    }

    @Test
    void controllerOptionsAreValidated() {
        assertThatThrownBy(() ->
                        open(SluiceConfig.builder(dir).controls("scripted-a").controlOption("scripted-a", "gian", "2")))
                .hasMessageContaining("control.scripted-a.gian is not an option")
                .hasMessageContaining("gain");
        assertThatThrownBy(() -> open(
                        SluiceConfig.builder(dir).controls("scripted-a").controlOption("scripted-a", "gain", "11")))
                .hasMessageContaining("control.scripted-a.gain = '11' is out of range (allowed: 0 to 10)");
    }

    @Test
    void manualCompactionRunsOffTheTickThreadAndReportsItsOutcome() {
        open(SluiceConfig.builder(dir).controls("scripted-a"));
        var p = node.defaultPartition();
        for (int f = 0; f < 3; f++) {
            for (int i = 0; i < 100; i++) {
                p.put(("k" + f + "-" + i).getBytes(), new byte[100]);
            }
            p.flush();
        }
        List<String> l0 = node.sample().partition("default").levels().get(0).files().stream()
                .map(x -> x.name())
                .toList();
        assertThat(l0).hasSize(3);
        ScriptedLoopProvider.SCRIPTS
                .get("scripted-a")
                .add((s, t) -> List.of(new Action.CompactFiles("default", l0, 1, "move to L1")));
        node.controlPlane().tickOnce();
        ScriptedLoopProvider.SCRIPTS.get("scripted-a").clear();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> node.recentEvents().stream()
                        .anyMatch(e -> e.controller().equals("manual-compaction")));
        ControlEvent done = node.recentEvents().stream()
                .filter(e -> e.controller().equals("manual-compaction"))
                .findFirst()
                .orElseThrow();
        assertThat(done.outcome()).as(done.detail()).isEqualTo(ControlEvent.Outcome.APPLIED);
        LsmSnapshot s = node.sample().partition("default");
        assertThat(s.l0Files()).isZero();
        // With level_compaction_dynamic_level_bytes RocksDB may move the output on to the base level at once.
        assertThat(s.levels().stream().skip(1).mapToInt(l -> l.fileCount()).sum())
                .isPositive();
    }

    @Test
    void theTickThreadRunsOnItsOwnWithARealClock() {
        node = Sluice.open(SluiceConfig.builder(dir)
                .env("default")
                .tickPeriod(Duration.ofMillis(50))
                .build());
        await().atMost(Duration.ofSeconds(60)).until(() -> node.controlPlane().ticks() >= 3); // busy CI: generous
        assertThat(node.latestSnapshot().partitions()).containsKey("default");
    }
}
