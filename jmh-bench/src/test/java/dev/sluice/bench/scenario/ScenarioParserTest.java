package dev.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.workload.KeyDistribution;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpKind;
import org.junit.jupiter.api.Test;

class ScenarioParserTest {
    private static final String GOOD = """
            # a comment
            name = t
            description = test scenario
            config.block.cache.bytes = 8388608

            [preload]
            keys = 1k
            value.bytes = 100

            [device]
            iops = 3000
            write.mbps = 50

            [phase warm]
            duration = 5s
            mode = closed
            threads = 2
            mix = insert:100
            measured = false

            [phase main]
            duration = 1m
            mode = open
            shape = square
            square.low = 100
            square.high = 900   # inline comment
            square.period = 10s
            mix = read:90, rmw:5, scan:5
            distribution = hotspot
            hotspot.keys = 0.1
            hotspot.ops = 0.9

            [stack base]
            profile = rocksdb-default

            [stack other]
            profile = rocksdb-default
            controls = [ ]
            config.tick.period.ms = 500
            env.extra = 1
            sysprop.a.b = c
            """;

    private static Scenario parse(String text) {
        return ScenarioParser.parse(text, "t.scenario", "test");
    }

    /** A scenario whose every phase is a warm-up would run for minutes and report zeros: refused before it runs. */
    @Test
    void aScenarioWithNoMeasuredPhaseIsRefused() {
        String text = GOOD.replace("square.period = 10s", "square.period = 10s\nmeasured = false");
        assertThatThrownBy(() -> parse(text))
                .hasMessageContaining("t.scenario:")
                .hasMessageContaining("every phase has measured = false");
    }

    /** A trailing comma was dropped until 2026-11-28 ("controls = x," ran as "controls = x"); now an empty name. */
    @Test
    void aTrailingCommaInAListIsAnEmptyNameAndRefused() {
        String text = withLine(lineOf("controls = [ ]"), "controls = admission,");
        assertThatThrownBy(() -> parse(text)).hasMessageContaining("controls").hasMessageContaining("''");
    }

    /** Replaces the n-th line (1-based) of GOOD. */
    private static String withLine(int n, String replacement) {
        String[] lines = GOOD.split("\n", -1);
        lines[n - 1] = replacement;
        return String.join("\n", lines);
    }

    private static int lineOf(String needle) {
        String[] lines = GOOD.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith(needle)) {
                return i + 1;
            }
        }
        throw new AssertionError(needle);
    }

    @Test
    void parsesEverySection() {
        Scenario s = parse(GOOD);
        assertThat(s.name()).isEqualTo("t");
        assertThat(s.preload().keys()).isEqualTo(1024);
        assertThat(s.preload().valueBytes()).isEqualTo(100);
        assertThat(s.preload().keyBytes()).isEqualTo(16);
        assertThat(s.device()).containsEntry("iops", "3000").containsEntry("write.mbps", "50");
        assertThat(s.phases()).hasSize(2);
        PhaseSpec warm = s.phases().get(0);
        assertThat(warm.measured()).isFalse();
        assertThat(warm.mode()).isEqualTo(PhaseSpec.Mode.CLOSED);
        PhaseSpec main = s.phases().get(1);
        assertThat(main.durationSeconds()).isEqualTo(60);
        assertThat(main.shape()).isEqualTo(new LoadShape.Square(100, 900, 10, 0.5));
        assertThat(main.mix().fraction(OpKind.READ)).isEqualTo(0.9);
        assertThat(main.distribution().kind()).isEqualTo(KeyDistribution.Kind.HOTSPOT);
        assertThat(s.totalSeconds()).isEqualTo(65);
        assertThat(s.baseline().name()).isEqualTo("base");
        StackSpec other = s.stacks().get(1);
        assertThat(other.controls()).isEmpty();
        assertThat(other.options())
                .containsEntry("tick.period.ms", "500")
                .containsEntry("block.cache.bytes", "8388608")
                .containsEntry("env.extra", "1")
                .containsEntry("env.device.iops", "3000");
        assertThat(other.sysprops()).containsEntry("a.b", "c");
    }

    @Test
    void unknownKeyNamesKeyAndLine() {
        int line = lineOf("threads = 2");
        assertThatThrownBy(() -> parse(withLine(line, "thraeds = 2")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith("t.scenario:" + line + ": thraeds: [phase warm] unknown key")
                .satisfies(e -> {
                    ScenarioException se = (ScenarioException) e;
                    assertThat(se.line()).isEqualTo(line);
                    assertThat(se.key()).isEqualTo("thraeds");
                });
    }

    @Test
    void badValuesNameKeyAndLine() {
        int mix = lineOf("mix = read:90");
        assertThatThrownBy(() -> parse(withLine(mix, "mix = raed:90, scan:10")))
                .hasMessageContaining("t.scenario:" + mix + ": mix:")
                .hasMessageContaining("unknown operation 'raed'");
        int dur = lineOf("duration = 1m");
        assertThatThrownBy(() -> parse(withLine(dur, "duration = soon")))
                .hasMessageStartingWith("t.scenario:" + dur + ": duration:")
                .hasMessageContaining("not a duration");
        int keys = lineOf("keys = 1k");
        assertThatThrownBy(() -> parse(withLine(keys, "keys = -5")))
                .hasMessageStartingWith("t.scenario:" + keys + ": keys:");
        int dist = lineOf("distribution = hotspot");
        assertThatThrownBy(() -> parse(withLine(dist, "distribution = pareto")))
                .hasMessageStartingWith("t.scenario:" + dist + ": distribution:")
                .hasMessageContaining("uniform, zipfian, latest, hotspot");
    }

    /** CLI probe (2026-11-28): 'rate = 0' was refused, but a square wave or steps of only 0 ran, as a stall. */
    @Test
    void anOpenLoopShapeThatOffersNothingIsRefused() {
        int low = lineOf("square.low");
        int high = lineOf("square.high");
        String zero =
                GOOD.replace("square.low = 100", "square.low = 0").replace("square.high = 900", "square.high = 0");
        assertThatThrownBy(() -> parse(zero))
                .hasMessageContaining("t.scenario:" + high + ": square.high:")
                .hasMessageContaining("offers no load");
        assertThat(parse(withLine(low, "square.low = 0")).phases().get(1).shape())
                .as("a square wave with a low half of 0 offers load in its high half")
                .isNotNull();
        String steps = GOOD.replace(
                "shape = square\nsquare.low = 100\nsquare.high = 900   # inline comment\nsquare.period = 10s",
                "shape = step\nstep.seconds = 5\nstep.rates = 0, 0");
        assertThat(steps).isNotEqualTo(GOOD);
        assertThatThrownBy(() -> parse(steps))
                .hasMessageContaining("step.rates:")
                .hasMessageContaining("offers no load");
        assertThatThrownBy(() -> parse(steps.replace("step.rates = 0, 0", "step.rates = 100, 200,")))
                .hasMessageContaining("step.rates:")
                .hasMessageContaining("empty item");
        assertThat(parse(steps.replace("step.rates = 0, 0", "step.rates = 0, 200"))
                        .phases())
                .hasSize(2);
    }

    /** CLI probe (2026-11-28): a bad sysprop value was the only stack error without file:line. */
    @Test
    void aSyspropKeepsItsLine() {
        int line = lineOf("sysprop.a.b");
        assertThat(parse(GOOD).stacks().get(1).keyLines()).containsEntry("sysprop.a.b", line);
    }

    @Test
    void mixWeightsMustSumTo100() {
        int mix = lineOf("mix = read:90");
        assertThatThrownBy(() -> parse(withLine(mix, "mix = read:9, rmw:5, scan:5")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("t.scenario:" + mix + ": mix:")
                .hasMessageContaining("sum to 19")
                .hasMessageContaining("100");
        assertThat(parse(withLine(mix, "mix = read:89.5, rmw:5.5, scan:5"))
                        .phases()
                        .get(1)
                        .mix()
                        .fraction(OpKind.READ))
                .isEqualTo(0.895);
    }

    @Test
    void keysThatDoNotFitTheModeOrShapeAreErrors() {
        int threads = lineOf("threads = 2");
        assertThatThrownBy(() -> parse(withLine(threads, "rate = 100")))
                .hasMessageStartingWith("t.scenario:" + threads + ": rate: [phase warm] not allowed in a closed-loop");
        int low = lineOf("square.low");
        assertThatThrownBy(() -> parse(withLine(low, "step.seconds = 5")))
                .hasMessageStartingWith("t.scenario:" + low + ": step.seconds:")
                .hasMessageContaining("unless shape = step");
        int hk = lineOf("hotspot.keys");
        assertThatThrownBy(() -> parse(withLine(dist(), "distribution = uniform")))
                .hasMessageStartingWith("t.scenario:" + hk + ": hotspot.keys:");
    }

    /** GOOD with {@code extra} lines added after the open-loop phase's {@code mode = open}. */
    private static String openPhaseWith(String... extra) {
        return GOOD.replace("mode = open\n", "mode = open\n" + String.join("\n", extra) + "\n");
    }

    /** 1-based line of the first line of {@code text} that starts with {@code needle}. */
    private static int lineIn(String text, String needle) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith(needle)) {
                return i + 1;
            }
        }
        throw new AssertionError(needle);
    }

    @Test
    void dispatchDefaultsToSyncWithWorkersAndABacklogBound() {
        PhaseSpec main = parse(GOOD).phases().get(1);
        assertThat(main.dispatch()).isEqualTo(PhaseSpec.Dispatch.SYNC);
        assertThat(main.threads()).isEqualTo(16);
        assertThat(main.maxBacklog()).isEqualTo(2_000_000);
        assertThat(main.maxInflight()).isZero();
        assertThat(parse(GOOD).phases().get(0).dispatch()).isEqualTo(PhaseSpec.Dispatch.SYNC);
    }

    @Test
    void asyncDispatchTakesMaxInflightAndNoThreads() {
        PhaseSpec main = parse(openPhaseWith("dispatch = async", "max.inflight = 5k"))
                .phases()
                .get(1);
        assertThat(main.dispatch()).isEqualTo(PhaseSpec.Dispatch.ASYNC);
        assertThat(main.maxInflight()).isEqualTo(5 * 1024);
        assertThat(main.threads()).isZero();
        assertThat(main.maxBacklog()).isZero();
        assertThat(main.shape()).isEqualTo(new LoadShape.Square(100, 900, 10, 0.5));
        PhaseSpec byDefault = parse(openPhaseWith("dispatch = ASYNC")).phases().get(1);
        assertThat(byDefault.maxInflight()).isEqualTo(1_000_000);
        assertThat(parse(GOOD).withDuration(13).phases().get(1).dispatch()).isEqualTo(PhaseSpec.Dispatch.SYNC);
        assertThat(parse(openPhaseWith("dispatch = async"))
                        .withDuration(13)
                        .phases()
                        .get(1))
                .extracting(PhaseSpec::dispatch, PhaseSpec::maxInflight)
                .containsExactly(PhaseSpec.Dispatch.ASYNC, 1_000_000L);
    }

    @Test
    void dispatchKeysThatDoNotFitAreErrorsNamingFileLineAndKey() {
        int threads = lineOf("threads = 2");
        assertThatThrownBy(() -> parse(withLine(threads, "dispatch = async")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith(
                        "t.scenario:" + threads + ": dispatch: [phase warm] not allowed in a closed-loop phase");
        assertThatThrownBy(() -> parse(withLine(threads, "max.inflight = 10")))
                .hasMessageStartingWith(
                        "t.scenario:" + threads + ": max.inflight: [phase warm] not allowed in a closed-loop phase");

        String bad = openPhaseWith("dispatch = later");
        assertThatThrownBy(() -> parse(bad))
                .hasMessageStartingWith("t.scenario:" + lineIn(bad, "dispatch") + ": dispatch: [phase main]")
                .hasMessageContaining("dispatch = 'later' is not allowed (allowed: sync, async)");

        String withThreads = openPhaseWith("dispatch = async", "threads = 8");
        assertThatThrownBy(() -> parse(withThreads))
                .hasMessageStartingWith("t.scenario:" + lineIn(withThreads, "threads = 8")
                        + ": threads: [phase main] not allowed with dispatch = async")
                .hasMessageContaining("max.inflight");
        String withBacklog = openPhaseWith("max.backlog = 100", "dispatch = async");
        assertThatThrownBy(() -> parse(withBacklog))
                .hasMessageStartingWith("t.scenario:" + lineIn(withBacklog, "max.backlog")
                        + ": max.backlog: [phase main] not allowed with dispatch = async");

        String syncInflight = openPhaseWith("max.inflight = 100");
        assertThatThrownBy(() -> parse(syncInflight))
                .hasMessageStartingWith("t.scenario:" + lineIn(syncInflight, "max.inflight")
                        + ": max.inflight: [phase main] not allowed unless dispatch = async");
        String explicitSync = openPhaseWith("dispatch = sync", "max.inflight = 100");
        assertThatThrownBy(() -> parse(explicitSync)).hasMessageContaining("not allowed unless dispatch = async");

        String zero = openPhaseWith("dispatch = async", "max.inflight = 0");
        assertThatThrownBy(() -> parse(zero))
                .hasMessageStartingWith("t.scenario:" + lineIn(zero, "max.inflight") + ": max.inflight: [phase main]")
                .hasMessageContaining("max.inflight = '0' is out of range (allowed: 1 to 100000000 requests)");
        String negative = openPhaseWith("dispatch = async", "max.inflight = -5");
        assertThatThrownBy(() -> parse(negative))
                .hasMessageContaining("max.inflight = '-5' is negative (allowed: 1 to 100000000 requests)");
    }

    private static int dist() {
        return lineOf("distribution = hotspot");
    }

    @Test
    void invalidStackConfigNamesTheLineOfTheKey() {
        int tick = lineOf("config.tick.period.ms");
        assertThatThrownBy(() -> parse(withLine(tick, "config.tick.period.ms = 5")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageStartingWith("t.scenario:" + tick + ": tick.period.ms: [stack other]")
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> parse(withLine(tick, "config.no.such.key = 5")))
                .hasMessageStartingWith("t.scenario:" + tick + ": no.such.key: [stack other]")
                .hasMessageContaining("unknown configuration key");
        assertThatThrownBy(() -> parse(withLine(tick, "control.admission.k1 = 0.5")))
                .hasMessageStartingWith("t.scenario:" + tick + ": control.admission.k1:")
                .hasMessageContaining("not in controls");
    }

    @Test
    void structuralErrors() {
        assertThatThrownBy(() -> parse(GOOD.replace("[phase warm]", "[phase]")))
                .hasMessageContaining("t.scenario:" + lineOf("[phase warm]") + ": [phase] needs a name");
        assertThatThrownBy(() -> parse(GOOD.replace("[device]", "[devise]")))
                .hasMessageContaining("t.scenario:" + lineOf("[device]") + ": [devise] unknown section");
        assertThatThrownBy(() -> parse(withLine(lineOf("threads = 2"), "mode = open")))
                .hasMessageContaining("t.scenario:" + lineOf("threads = 2") + ": mode: [phase warm] key given twice"
                        + " (first on line " + lineOf("mode = closed") + ")");
        assertThatThrownBy(() -> parse(withLine(lineOf("threads = 2"), "just words")))
                .hasMessageStartingWith("t.scenario:" + lineOf("threads = 2") + ": expected 'key = value'");
        assertThatThrownBy(() -> parse(GOOD.replace("[stack other]", "[stack Other_Stack]")))
                .hasMessageContaining("lower-case");
        assertThatThrownBy(() -> parse(GOOD.substring(0, GOOD.indexOf("[stack base]"))))
                .hasMessageContaining("t.scenario:0: no [stack NAME] section");
        assertThatThrownBy(() -> parse(GOOD.replace("duration = 5s\n", "")))
                .hasMessageStartingWith("t.scenario:" + lineOf("[phase warm]") + ": [phase warm] needs key 'duration'");
        assertThatThrownBy(() -> parse(GOOD.replace(
                        "profile = rocksdb-default\n\n[stack other]", "config.data.dir = x\n\n[stack other]")))
                .hasMessageContaining("config.data.dir");
    }

    @Test
    void durationOverrideScalesPhasesInProportion() {
        Scenario s = parse(GOOD).withDuration(13);
        assertThat(s.phases().get(0).durationSeconds()).isEqualTo(1);
        assertThat(s.phases().get(1).durationSeconds()).isEqualTo(12);
        assertThat(s.totalSeconds()).isEqualTo(13);
        assertThat(parse(GOOD).withDuration(130).phases().get(0).durationSeconds())
                .isEqualTo(10);
        assertThatThrownBy(() -> parse(GOOD).withDuration(1)).hasMessageContaining("phase");
    }

    @Test
    void stackFilterKeepsOrderAndRejectsUnknownNames() {
        assertThat(parse(GOOD).withStacks(java.util.Set.of("other")).baseline().name())
                .isEqualTo("other");
        assertThatThrownBy(() -> parse(GOOD).withStacks(java.util.Set.of("nope")))
                .hasMessageContaining("unknown stack(s) [nope]");
    }
}
