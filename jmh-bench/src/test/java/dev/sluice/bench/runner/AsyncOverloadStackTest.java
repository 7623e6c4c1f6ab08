package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.report.Summary;
import dev.sluice.bench.scenario.Scenario;
import dev.sluice.bench.scenario.ScenarioParser;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One stack of an overload scenario run in this JVM through the real {@link StackRunner} (real node, real RocksDB): an
 * open-loop phase with {@code dispatch = async} offered 10× what a static admission gate admits. Checks the wiring from
 * the scenario key to the driver and the gate's queue in the results: rejections counted, the per-window admission
 * queue and its peak known, in flight bounded by the gate rather than by the offered load.
 */
class AsyncOverloadStackTest {
    private static final String SCENARIO = """
            name = async-overload
            seed = 3

            [preload]
            keys = 2000
            value.bytes = 100
            threads = 1
            settle = 5s

            [phase overload]
            duration = 3s
            mode = open
            dispatch = async
            max.inflight = 100000
            rate = 2000
            mix = insert:50, read:50

            [stack gated]
            controls = static-admission
            control.static-admission.rate = 200
            control.static-admission.queue.max = 50
            control.static-admission.wait.max.ms = 250
            config.tick.period.ms = 100
            """;

    @TempDir
    Path dir;

    @Test
    void aRelativeDataDirIsTheNodesDataDirNotANestedCopy() {
        Scenario sc = ScenarioParser.parse(SCENARIO, "async-overload.scenario", "test");
        Path relative = Path.of("bench-out", "x", "data", "1-gated");
        assertThat(StackRunner.config(sc.baseline(), relative, false).dataDir()).isEqualTo(relative.toAbsolutePath());
    }

    @Test
    void theGateSeesTheOverloadAndItsQueueIsReported() throws Exception {
        Scenario sc = ScenarioParser.parse(SCENARIO, "async-overload.scenario", "test");
        StackRunner.Progress quiet = new StackRunner.Progress() {
            @Override
            public void preload(long done, long total) {}

            @Override
            public void settling(double seconds) {}

            @Override
            public void window(int second, int totalSeconds, Results.Window w) {}
        };
        Results.Stack s = new StackRunner(
                        sc, sc.baseline(), dir.resolve("data"), new StackRunner.Options(false, "", "in-process"), quiet)
                .run();

        Results.Phase p = s.phases().get(0);
        assertThat(p.dispatch()).isEqualTo("async");
        assertThat(p.threads()).isNull();
        // 3 s x 2000/s; the phase ends at a wall-clock window boundary, so a generator that a busy machine runs late
        // has released fewer by then (the bound allows 0.3 s of lag).
        assertThat(p.generated()).isBetween(5400L, 6001L);
        assertThat(p.dropped()).isZero();
        assertThat(p.unstartedAtEnd()).isZero();
        // At most 50 wait in the gate (plus the few admitted and running, more on a busy machine): the client holds
        // nothing back of the 6000 offered.
        assertThat(p.maxBacklog()).isBetween(20L, 200L);

        Results.Metrics m = s.metrics();
        assertThat(m.errors()).isZero();
        assertThat(m.rejected()).as("refused by the gate").isGreaterThan(4000);
        assertThat(m.operations()).as("admitted at ~200/s").isBetween(300L, 1200L);
        assertThat(s.windows()).hasSize(3).allSatisfy(w -> {
            assertThat(w.admissionRate()).isEqualTo(200.0);
            assertThat(w.admissionQueued()).isNotNull().isBetween(0, 50);
            assertThat(w.backlog()).isNotNull();
        });
        assertThat(m.peakAdmissionQueued())
                .as("peak admission queue")
                .isEqualTo(s.windows().stream()
                        .mapToInt(Results.Window::admissionQueued)
                        .max()
                        .orElseThrow())
                .isGreaterThan(10);

        List<Results.Stack> withRatios = Summary.withRatios(List.of(s));
        assertThat(withRatios.get(0).ratioToBaseline()).containsEntry("peakAdmissionQueued", 1.0);
        assertThat(Summary.markdownTable(withRatios)).contains("| Peak admission queue (requests waiting) |");
    }
}
