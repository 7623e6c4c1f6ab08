package dev.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.workload.LoadShape;
import org.junit.jupiter.api.Test;

/** {@code shape = capacity}: an open-loop rate set to a fraction of an earlier closed-loop phase's throughput. */
class CapacityShapeTest {
    private static final String TEXT = """
            name = t
            description = capacity test
            [preload]
            keys = 1k
            [phase cap]
            duration = 10s
            mode = closed
            mix = insert:100
            measured = false
            [phase main]
            duration = 20s
            mode = open
            shape = capacity
            capacity.phase = cap
            %s
            mix = insert:100
            [stack base]
            profile = rocksdb-default
            """;

    private static Scenario parse(String extra) {
        return ScenarioParser.parse(TEXT.formatted(extra), "t.scenario", "test");
    }

    @Test
    void parsesPhaseAndFractionWithNinetyPercentByDefault() {
        assertThat(parse("").phases().get(1).shape()).isEqualTo(new LoadShape.OfCapacity("cap", 0.9));
        assertThat(parse("capacity.fraction = 0.75").phases().get(1).shape())
                .isEqualTo(new LoadShape.OfCapacity("cap", 0.75));
    }

    @Test
    void resolvesToAConstantShareOfTheCapacityAndCannotBeUsedUnresolved() {
        LoadShape.OfCapacity c = new LoadShape.OfCapacity("cap", 0.9);
        assertThat(c.resolve(10_000)).isEqualTo(new LoadShape.Constant(9_000));
        assertThatThrownBy(() -> c.rateAt(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'cap'");
    }

    @Test
    void badInputNamesTheKey() {
        assertThatThrownBy(() -> parse("rate = 100")).hasMessageContaining("rate");
        assertThatThrownBy(() -> parse("capacity.fraction = 1.5")).hasMessageContaining("capacity.fraction");
        String later = TEXT.formatted("").replace("capacity.phase = cap", "capacity.phase = main");
        assertThatThrownBy(() -> ScenarioParser.parse(later, "t.scenario", "test"))
                .hasMessageContaining("capacity.phase")
                .hasMessageContaining("not an earlier closed-loop phase");
        String open = TEXT.formatted("").replace("mode = closed", "mode = open\nrate = 10");
        assertThatThrownBy(() -> ScenarioParser.parse(open, "t.scenario", "test"))
                .hasMessageContaining("not an earlier closed-loop phase");
        String closedWithCapacity = TEXT.formatted("").replace("measured = false", "capacity.fraction = 0.5");
        assertThatThrownBy(() -> ScenarioParser.parse(closedWithCapacity, "t.scenario", "test"))
                .hasMessageContaining("capacity.fraction");
    }
}
