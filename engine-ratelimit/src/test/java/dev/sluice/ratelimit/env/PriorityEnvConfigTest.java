package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.config.Option;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Option parsing and validation (pure Java, no native code). */
class PriorityEnvConfigTest {
    @Test
    void defaultsArePassThroughWithoutDeviceOrCaps() {
        PriorityEnvConfig c = PriorityEnvConfig.defaults();
        assertThat(c.policy()).isInstanceOf(IoPolicy.PassThrough.class);
        assertThat(c.device().enabled()).isFalse();
        assertThat(c.classLimits()).isEmpty();
        assertThat(c.chunkBytes()).isEqualTo(256 * 1024);
    }

    @Test
    void everyOptionHasADefaultADescriptionAndMbpsIsMiB() {
        for (Option<?> o : PriorityEnvConfig.OPTIONS.options()) {
            if (o.name().startsWith("chunk.") && !o.name().equals("chunk.kb")) {
                assertThat(o.defaultValue()).as(o.name()).isNull(); // unset: env.chunk.kb
                assertThat(o.defaultText()).as(o.name()).isEqualTo("(env.chunk.kb)");
            } else {
                assertThat(o.defaultValue()).as(o.name()).isNotNull();
            }
            assertThat(o.doc()).as(o.name()).isNotBlank();
            if (o.name().endsWith(".mbps")) {
                assertThat(o.unit()).as(o.name()).isEqualTo("MiB/s");
            }
        }
        assertThat(PriorityEnvConfig.OPTIONS.options())
                .hasSize(19 + 2 * IoClass.values().length + 5 /* chunk.<class>.kb of the background classes */);
    }

    @Test
    void theRenderedDefaultsParseAsTheDefaults() {
        PriorityEnvConfig merged = PriorityEnvConfig.fromOptions(
                PriorityEnvConfig.OPTIONS.defaults().asStrings());
        assertThat(merged).isEqualTo(PriorityEnvConfig.defaults());
    }

    @Test
    void aBackgroundClassMayHaveItsOwnChunkSize() {
        assertThat(java.util.Arrays.stream(IoClass.values()).filter(IoClass::isBackground))
                .as("the classes the native Env cuts into chunks (IsBackground in sluice_io.h)")
                .containsExactly(
                        IoClass.FLUSH,
                        IoClass.COMPACTION_L0,
                        IoClass.COMPACTION_HIGH,
                        IoClass.COMPACTION_DEEP,
                        IoClass.PREFETCH);
        PriorityEnvConfig c = PriorityEnvConfig.fromOptions(Map.of(
                "chunk.kb", "32", "chunk.flush.kb", "8", "chunk.compaction_l0.kb", "4.5", "chunk.prefetch.kb", "0"));
        assertThat(c.chunkBytes()).isEqualTo(32 * 1024);
        assertThat(c.classChunkBytes())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(IoClass.FLUSH, 8L * 1024, IoClass.COMPACTION_L0, 4608L, IoClass.PREFETCH, 0L));
        assertThat(PriorityEnvConfig.defaults().classChunkBytes()).isEmpty();
        assertThat(PriorityEnvConfig.fromOptions(Map.of("chunk.flush.kb", "")).classChunkBytes())
                .as("empty = not set")
                .isEmpty();

        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("chunk.flush.kb", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.chunk.flush.kb")
                .hasMessageContaining("out of range");
        for (String tiny : new String[] {"0.5", "1e-9"}) { // would round to 0 bytes, i.e. silently "never cut"
            assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("chunk.flush.kb", tiny)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("env.chunk.flush.kb");
            assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("chunk.kb", tiny)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("env.chunk.kb");
        }
        assertThat(PriorityEnvConfig.fromOptions(Map.of("chunk.kb", "0")).chunkBytes())
                .isZero();
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("chunk.compaction_deep.kb", "big")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.chunk.compaction_deep.kb")
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("chunk.wal.kb", "8")))
                .as("the WAL is never cut")
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.chunk.wal.kb");
        assertThatThrownBy(() -> PriorityEnvConfig.defaults().withClassChunkBytes(IoClass.USER_GET, 8192))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("USER_GET");
    }

    @Test
    void deviceAndLimitsAreParsedInMiB() {
        PriorityEnvConfig c = PriorityEnvConfig.fromOptions(Map.of(
                "device.enabled", "true",
                "device.iops", "1500",
                "device.read.mbps", "50",
                "device.latency.us", "250",
                "limit.compaction_deep.mbps", "4",
                "limit.user_get.ops", "2000"));
        assertThat(c.device().enabled()).isTrue();
        assertThat(c.device().paidIops()).isEqualTo(1500);
        assertThat(c.device().readBytesPerSecond()).isEqualTo(50.0 * 1024 * 1024);
        assertThat(c.device().writeBytesPerSecond()).isEqualTo(125.0 * 1024 * 1024);
        assertThat(c.device().baseLatency()).isEqualTo(Duration.ofNanos(250_000));
        assertThat(c.device().punitiveLatency()).isEqualTo(Duration.ofNanos(666_666));
        assertThat(c.classLimits().get(IoClass.COMPACTION_DEEP).bytesPerSecond())
                .isEqualTo(4.0 * 1024 * 1024);
        assertThat(c.classLimits().get(IoClass.USER_GET).opsPerSecond()).isEqualTo(2000);
        assertThat(c.classLimits()).doesNotContainKey(IoClass.WAL);
    }

    @Test
    void policiesFollowThePapersSettings() {
        IoPolicy cruise = PriorityEnvConfig.fromOptions(Map.of("policy", "cruisedb", "policy.starvation.ms", "20"))
                .policy();
        assertThat(cruise).isInstanceOfSatisfying(IoPolicy.StrictPriority.class, s -> {
            assertThat(s.starvationBound()).isEqualTo(Duration.ofMillis(20));
            assertThat(s.tiers().get(IoClass.USER_GET)).isZero();
            assertThat(s.tiers().get(IoClass.COMPACTION_L0)).isEqualTo(1);
            assertThat(s.tiers().get(IoClass.COMPACTION_DEEP)).isEqualTo(2);
            assertThat(s.budget().isLimited()).isFalse();
        });
        IoPolicy flex = PriorityEnvConfig.fromOptions(Map.of("policy", "flexengine", "device.enabled", "true"))
                .policy();
        assertThat(flex).isInstanceOfSatisfying(IoPolicy.WeightedFair.class, w -> {
            assertThat(w.weights()).containsExactly(1.0, 10.0, 1.0);
            assertThat(w.strictTopTier()).isTrue();
            assertThat(w.budget().bytesPerSecond()).isEqualTo(125.0 * 1024 * 1024);
            assertThat(w.tiers().get(IoClass.FLUSH)).isEqualTo(1);
        });
        IoPolicy calcspar = PriorityEnvConfig.fromOptions(Map.of("policy", "calcspar", "policy.paid.iops", "800"))
                .policy();
        assertThat(calcspar).isInstanceOfSatisfying(IoPolicy.TimeWindows.class, t -> {
            assertThat(t.paidIops()).isEqualTo(800);
            assertThat(t.tiers().get(IoClass.COMPACTION_L0)).isZero();
            assertThat(t.tiers().get(IoClass.COMPACTION_HIGH)).isEqualTo(1);
            assertThat(t.tiers().get(IoClass.PREFETCH)).isEqualTo(2);
        });
    }

    @Test
    void writeBudgetIsTheDeviceWriteBandwidthForFlexEngineAndBudgetedCruiseDbOnly() {
        double mib = 1024 * 1024;
        IoPolicy.NodeBudget flex = budgetOf(PriorityEnvConfig.fromOptions(
                Map.of("policy", "flexengine", "device.enabled", "true", "device.write.mbps", "40")));
        assertThat(flex.bytesPerSecond()).isEqualTo(125 * mib); // max(read, write) as before
        assertThat(flex.writeBytesPerSecond()).isEqualTo(40 * mib);
        // the option overrides the automatic value
        assertThat(budgetOf(PriorityEnvConfig.fromOptions(Map.of(
                                "policy", "flexengine", "device.enabled", "true", "policy.node.write.mbps", "30")))
                        .writeBytesPerSecond())
                .isEqualTo(30 * mib);
        // flexengine on a node budget without the device: no device bandwidth to follow
        assertThat(budgetOf(PriorityEnvConfig.fromOptions(Map.of("policy", "flexengine", "policy.node.mbps", "100")))
                        .hasWriteBudget())
                .isFalse();
        // cruisedb without a node budget stays in its in-flight mode, without a write budget
        IoPolicy.NodeBudget cruise =
                budgetOf(PriorityEnvConfig.fromOptions(Map.of("policy", "cruisedb", "device.enabled", "true")));
        assertThat(cruise.isLimited()).isFalse();
        assertThat(cruise.hasWriteBudget()).isFalse();
        assertThat(budgetOf(PriorityEnvConfig.fromOptions(
                                Map.of("policy", "cruisedb", "device.enabled", "true", "policy.node.mbps", "100")))
                        .writeBytesPerSecond())
                .isEqualTo(125 * mib);
        // set explicitly, it applies to cruisedb in its in-flight mode too (which stays in that mode)
        IoPolicy.NodeBudget explicit =
                budgetOf(PriorityEnvConfig.fromOptions(Map.of("policy", "cruisedb", "policy.node.write.mbps", "20")));
        assertThat(explicit.isLimited()).isFalse();
        assertThat(explicit.writeBytesPerSecond()).isEqualTo(20 * mib);
        // calcspar's allocators keep their behaviour unless the option is set
        assertThat(budgetOf(PriorityEnvConfig.fromOptions(
                                Map.of("policy", "calcspar-dynamic", "device.enabled", "true")))
                        .hasWriteBudget())
                .isFalse();
        for (String policy : new String[] {"calcspar", "passthrough"}) {
            assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(
                            Map.of("policy", policy, "device.enabled", "true", "policy.node.write.mbps", "20")))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("env.policy.node.write.mbps")
                    .hasMessageContaining("env.policy = " + policy + " has none");
        }
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy.node.write.mbps", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.policy.node.write.mbps");
        assertThat(PriorityEnvConfig.defaults().writeBurst()).isEqualTo(Duration.ofMillis(2));
        assertThat(PriorityEnvConfig.fromOptions(Map.of("policy.node.write.burst.ms", "0.5"))
                        .writeBurst())
                .isEqualTo(Duration.ofMillis(0).plusNanos(500_000));
        for (String bad : new String[] {"0", "-1", "1001"}) {
            assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy.node.write.burst.ms", bad)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("env.policy.node.write.burst.ms")
                    .hasMessageContaining("out of range");
        }
        assertThatThrownBy(() -> new IoPolicy.NodeBudget(0, 0, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("write bytes/s NaN");
    }

    private static IoPolicy.NodeBudget budgetOf(PriorityEnvConfig c) {
        if (c.policy() instanceof IoPolicy.WeightedFair w) {
            return w.budget();
        }
        if (c.policy() instanceof IoPolicy.StrictPriority s) {
            return s.budget();
        }
        throw new AssertionError("no node budget in " + c.policy());
    }

    @Test
    void badOptionsNameTheKeyAndTheAllowedValues() {
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("device.iopz", "1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.device.iopz")
                .hasMessageContaining("device.iops");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("device.iops", "lots")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.device.iops = 'lots'");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("device.read.mbps", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("device.enabled", "yes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("true or false");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy", "fifo")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("passthrough, cruisedb, flexengine, calcspar");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy", "flexengine")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.policy.node.mbps");
        assertThatThrownBy(() -> PriorityEnvConfig.fromOptions(Map.of("policy", "calcspar")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("env.policy.paid.iops");
    }

    @Test
    void policyAndFaultRuleValuesAreValidated() {
        assertThatThrownBy(() -> new IoPolicy.WeightedFair(
                        IoPolicy.tierMap(java.util.List.of(IoClass.WAL), java.util.List.of()),
                        java.util.List.of(1.0, 2.0),
                        true,
                        IoPolicy.NodeBudget.UNLIMITED))
                .hasMessageContaining("tier 2");
        assertThatThrownBy(() -> new IoPolicy.StrictPriority(Map.of(), Duration.ZERO, IoPolicy.NodeBudget.UNLIMITED))
                .hasMessageContaining("no tier for WAL");
        assertThatThrownBy(() -> FaultRule.eio(Set.of(), Set.of(FaultRule.Op.READ)))
                .hasMessageContaining("classes");
        assertThatThrownBy(() -> FaultRule.eio(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE))
                        .withProbability(0))
                .hasMessageContaining("probability");
        FaultRule r = FaultRule.eio(Set.of(IoClass.WAL, IoClass.META), Set.of(FaultRule.Op.SYNC));
        assertThat(r.classMask()).isEqualTo((1 << IoClass.WAL.ordinal()) | (1 << IoClass.META.ordinal()));
        assertThat(r.opMask()).isEqualTo(1 << 2);
        assertThat(r.fileKindMask()).isEqualTo(0b11111);
    }

    @Test
    void partitionPrefixesIncludeAbsoluteAndResolvedSpellings() {
        Path rel = Path.of("some", "..", "data", "p1");
        assertThat(PriorityEnv.prefixes(rel))
                .contains(rel.toString())
                .contains(rel.toAbsolutePath().normalize().toString());
    }

    /**
     * A rate is 0 or at least 0.01 MiB/s (1 op/s): subnormal rates passed "0 to N" and overflowed the native wait —
     * no limit for some keys, I/O stalled for good and a JVM that would not exit for others (probe, 2026-11-28).
     */
    @Test
    void aPositiveRateTooSmallToPaceIsRefusedAndZeroStillMeansNone() {
        for (String[] kv : new String[][] {
            {"device.iops", "4.9e-324"},
            {"device.write.mbps", "1e-320"},
            {"limit.wal.mbps", "0.001"},
            {"policy.node.iops", "0.5"},
            {"limit.flush.ops", "1e-9"}
        }) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> PriorityEnvConfig.fromOptions(Map.of(kv[0], kv[1])))
                    .as(kv[0])
                    .hasMessageContaining(kv[0])
                    .hasMessageContaining("is out of range")
                    .hasMessageContaining("0, or ");
        }
        assertThat(PriorityEnvConfig.fromOptions(Map.of("limit.wal.mbps", "0", "device.iops", "0")))
                .isNotNull();
        assertThat(PriorityEnvConfig.fromOptions(Map.of("limit.wal.mbps", "0.01", "limit.wal.ops", "1")))
                .isNotNull();
    }
}
