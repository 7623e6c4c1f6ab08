package dev.sluice.bench.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CassandraScenarioTest {
    @Test
    void theShippedFloodScenarioParses() throws Exception {
        CassandraScenario s = CassandraScenario.load("cassandra-flood");
        assertThat(s.stacks()).extracting(CassandraScenario.Stack::name).containsExactly("ucs", "sluice");
        assertThat(s.phases()).extracting(CassandraScenario.Phase::name).containsExactly("flood", "mixed");
        assertThat(s.stacks().get(1).compaction()).contains("dev.sluice.cassandra.SluiceCompactionStrategy");
        assertThat(s.stacks().get(1).sysprops()).containsEntry("sluice.controls", "admission");
        assertThat(s.stacks().get(0).sysprops()).isEmpty();
        assertThat(s.yaml()).containsEntry("concurrent_compactors", "1");
        assertThat(s.jitWarmupSeconds()).isEqualTo(45);
    }

    @Test
    void badScenariosAreRefusedNamingTheKey() throws Exception {
        String ok =
                "description = d\nduration.seconds = 30\nwarmup.seconds = 0\nseed = 1\nkeys = 10\nvalue.bytes = 100\n"
                        + "phases = a\nphase.a.fraction = 1\nphase.a.read.fraction = 0\nphase.a.concurrency = 4\n"
                        + "stacks = x\nstack.x.compaction = 'class': 'UnifiedCompactionStrategy'\n";
        assertThatThrownBy(() -> CassandraScenario.parse("t", "t.scenario", ok.replace("keys = 10", "keys = ten")))
                .hasMessageContaining("t.scenario: keys = 'ten' is not a number");
        assertThatThrownBy(() -> CassandraScenario.parse(
                        "t", "t.scenario", ok.replace("phase.a.fraction = 1", "phase.a.fraction = 0.5")))
                .hasMessageContaining("phase fractions add up to 0.5");
        assertThatThrownBy(() -> CassandraScenario.parse(
                        "t",
                        "t.scenario",
                        ok.replace("stack.x.compaction = 'class': 'UnifiedCompactionStrategy'\n", "")))
                .hasMessageContaining("missing key 'stack.x.compaction'");
        assertThatThrownBy(() -> CassandraScenario.parse("t", "t.scenario", ok + "stack.x.sysprops = novalue\n"))
                .hasMessageContaining("'novalue' is not key=value");
        assertThat(CassandraScenario.parse("t", "t.scenario", ok).jitWarmupSeconds())
                .as("no JIT warm-up unless the scenario asks for one")
                .isZero();
        assertThatThrownBy(() -> CassandraScenario.parse("t", "t.scenario", ok + "jit.warmup.seconds = -5\n"))
                .hasMessageContaining("t.scenario: jit.warmup.seconds = -5 is out of range");
        assertThat(CassandraScenario.parse("t", "t.scenario", ok).tableOptionsClause())
                .as("no table options unless the scenario sets them")
                .isEmpty();
        assertThat(CassandraScenario.parse(
                                "t",
                                "t.scenario",
                                ok + "table.options = compression = {'class': 'DeflateCompressor'}\n")
                        .tableOptionsClause())
                .isEqualTo(" AND compression = {'class': 'DeflateCompressor'}");
        assertThatThrownBy(() -> CassandraScenario.parse(
                        "t", "t.scenario", ok + "table.options = gc_grace_seconds = 0 AND compaction = {}\n"))
                .hasMessageContaining("t.scenario: table.options must not set compaction");
        assertThatThrownBy(() -> CassandraScenario.parse(
                        "t", "t.scenario", ok + "table.options = gc_grace_seconds = 0; DROP TABLE x\n"))
                .hasMessageContaining("must not contain ';'");
        assertThatThrownBy(() -> CassandraScenario.load("no-such-scenario"))
                .hasMessageContaining("no Cassandra scenario 'no-such-scenario'");
    }

    @Test
    void aShortRunKeepsTwoThirdsOfItsWindowsMeasured() throws Exception {
        CassandraScenario s = CassandraScenario.load("cassandra-flood");
        assertThat(s.warmupFor(s.durationSeconds())).isEqualTo(s.warmupSeconds());
        assertThat(s.warmupFor(30)).isEqualTo(Math.min(s.warmupSeconds(), 10));
        assertThat(s.warmupFor(5)).isEqualTo(Math.min(s.warmupSeconds(), 1));
    }

    @Test
    void durations() {
        assertThat(CassandraBench.parseDuration("30s")).isEqualTo(30);
        assertThat(CassandraBench.parseDuration("10m")).isEqualTo(600);
        assertThat(CassandraBench.parseDuration("45")).isEqualTo(45);
        assertThatThrownBy(() -> CassandraBench.parseDuration("2s")).hasMessageContaining("at least 5 s");
        assertThatThrownBy(() -> CassandraBench.parseDuration("soon")).hasMessageContaining("expected e.g. 30s");
    }
}
