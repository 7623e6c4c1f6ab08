package dev.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TenantsScenarioTest {
    static final String BASE = """
            config.partitions = t1, noisy
            [tenants]
            noisy = noisy
            rcu = 500
            wcu = 250
            noisy.phases = noisy
            [preload]
            keys = 10
            [phase calm]
            duration = 10s
            mode = open
            dispatch = async
            rate = 100
            mix = insert:50, read:50
            [phase noisy]
            duration = 10s
            mode = open
            dispatch = async
            rate = 100
            mix = insert:50, read:50
            [stack a]
            profile = rocksdb-default
            config.partition.noisy.wcu = 250
            """;

    static Scenario parse(String text) {
        return ScenarioParser.parse(text, "t.scenario", "test");
    }

    @Test
    void parsesTheTenantsSectionAndTheQuotaRateFollowsTheTighterBucket() {
        TenantsSpec t = parse(BASE).tenants();
        assertThat(t).isEqualTo(new TenantsSpec("noisy", 500, 250, 5, java.util.List.of("noisy")));
        // half reads, half writes: the write bucket (250/s) is full at 500 requests/s
        assertThat(t.quotaRate(0.5, 0.5)).isEqualTo(500.0);
        assertThat(t.quotaRate(1, 0)).isEqualTo(500.0);
        assertThat(parse(BASE.replace("[tenants]", "[device]\niops = 100\n[tenants]"))
                        .withDuration(4)
                        .tenants())
                .isEqualTo(t);
    }

    @Test
    void theShippedScenarioParses() {
        Scenario s = Scenarios.load("flex-noisy-neighbour");
        assertThat(s.tenants().noisy()).isEqualTo("noisy");
        assertThat(s.phases()).extracting(PhaseSpec::name).containsExactly("warmup", "calm", "noisy", "after");
        assertThat(s.stacks()).extracting(StackSpec::name).containsExactly("rocksdb", "quotas", "flexengine");
        assertThat(s.tenants().quotaRate(0.5, 0.5)).isEqualTo(1500.0); // 1,200/s offered = 80 %
    }

    @Test
    void errorsNameTheProblem() {
        assertThatThrownBy(() -> parse(BASE.replace("noisy = noisy", "noisy = t9")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("names tenant 't9', but stack 'a' has partitions [t1, noisy]");
        assertThatThrownBy(() -> parse(BASE.replace("noisy.phases = noisy", "noisy.phases = loud")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("names phase 'loud', but the phases are [calm, noisy]");
        assertThatThrownBy(() -> parse(BASE.replaceFirst("dispatch = async\n", "")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("[phase calm] in a scenario with [tenants] needs mode = open, dispatch = async");
        assertThatThrownBy(() -> parse(BASE.replace("wcu = 250\nnoisy", "wcu = 0\nnoisy")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("wcu");
        assertThatThrownBy(() -> parse(BASE.replace("rcu = 500", "rcu = 500\nloud = yes")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("unknown key");
        assertThatThrownBy(() -> parse(BASE.replace("config.partition.noisy.wcu = 250", "config.partition.t7.wcu = 1")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("quota given for partition 't7'");
    }
}
