package dev.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class OversubscriptionScenarioTest {
    @Test
    void theShippedScenarioHasTheIssuesPhasesStacksAndSlo() {
        Scenario s = Scenarios.load("flex-oversubscription");
        assertThat(s.phases()).extracting(PhaseSpec::name).containsExactly("bosr-1", "bosr-2", "bosr-3");
        assertThat(s.stacks())
                .extracting(StackSpec::name)
                .containsExactly("rocksdb", "rocksdb-autotuned", "flex-no-deferral", "flexengine");
        TenantsSpec t = s.tenants();
        assertThat(t.sloMs()).isEqualTo(50.0);
        assertThat(t.quotaFollowsRate()).isTrue();
        assertThat(t.noisyPhases()).isEmpty();
        assertThat(s.stacks().get(3).controls()).contains("deferral");
        assertThat(s.stacks().get(2).controls()).doesNotContain("deferral");
    }

    @Test
    void sloAndQuotaFollowingDefaultOffAndBadValuesAreNamed() {
        String base = TenantsScenarioTest.BASE;
        TenantsSpec t = TenantsScenarioTest.parse(base).tenants();
        assertThat(t.sloMs()).isZero();
        assertThat(t.quotaFollowsRate()).isFalse();
        TenantsSpec noNoisy = TenantsScenarioTest.parse(base.replace("noisy.phases = noisy\n", "slo.ms = 20\n"))
                .tenants();
        assertThat(noNoisy.noisyPhases()).isEqualTo(List.of());
        assertThat(noNoisy.sloMs()).isEqualTo(20.0);
        assertThatThrownBy(() -> TenantsScenarioTest.parse(base.replace("rcu = 500", "rcu = 500\nslo.ms = -1")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("slo.ms");
        assertThatThrownBy(() ->
                        TenantsScenarioTest.parse(base.replace("rcu = 500", "rcu = 500\nquota.follows.rate = maybe")))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining("quota.follows.rate");
    }
}
