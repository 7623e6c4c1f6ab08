package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import dev.sluice.bench.SluiceCli;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny multi-tenant run end to end (real engine, in process): two tenants, a calm and a noisy phase, a stack without
 * quotas and one with. Checks the per-tenant results (schema, one entry per tenant and phase, a p99 per second) and the
 * quota's effect by counts: the noisy tenant is throttled and refused with a quota and served at most its quota's bound,
 * and served what it offers without one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantBenchTest {
    static final String SCENARIO = """
            name = tenants-tiny
            seed = 3
            config.partitions = a, noisy
            [tenants]
            noisy = noisy
            rcu = 100
            wcu = 100
            noisy.factor = 5
            noisy.phases = noisy
            [preload]
            keys = 2000
            key.bytes = 16
            value.bytes = 1000
            settle = 5s
            [phase calm]
            duration = 3s
            mode = open
            dispatch = async
            rate = 100
            mix = insert:50, read:50
            [phase noisy]
            duration = 3s
            mode = open
            dispatch = async
            rate = 100
            mix = insert:50, read:50
            [stack rocksdb]
            profile = rocksdb-default
            [stack quotas]
            profile = rocksdb-default
            config.partition.a.rcu = 100
            config.partition.a.wcu = 100
            config.partition.noisy.rcu = 100
            config.partition.noisy.wcu = 100
            """;

    Path out;
    Results.Run run;
    String summary;

    @BeforeAll
    void runIt(@TempDir Path tmp) throws Exception {
        Path scenario = tmp.resolve("tenants-tiny.scenario");
        Files.writeString(scenario, SCENARIO);
        out = tmp.resolve("out");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int exit;
        try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            exit = SluiceCli.execute(
                    ps,
                    System.err,
                    "bench",
                    "--scenario",
                    scenario.toString(),
                    "--in-process",
                    "--no-progress",
                    "--out",
                    out.toString());
        }
        assertThat(exit).as(buf.toString(StandardCharsets.UTF_8)).isZero();
        run = Results.mapper().readValue(out.resolve("results.json").toFile(), Results.Run.class);
        summary = Files.readString(out.resolve("summary.md"));
        JsonSchemaFactory f = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
        try (InputStream in = getClass().getResourceAsStream("/results.schema.json")) {
            JsonSchema schema = f.getSchema(in);
            assertThat(schema.validate(new ObjectMapper()
                            .readTree(out.resolve("results.json").toFile())))
                    .as("schema violations")
                    .isEmpty();
        }
    }

    Results.Tenant tenant(String stack, String name, String phase) {
        Results.Stack s = run.stacks().stream()
                .filter(x -> x.name().equals(stack))
                .findFirst()
                .orElseThrow();
        return s.tenants().stream()
                .filter(t -> t.name().equals(name) && t.phase().equals(phase))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void oneEntryPerTenantAndPhaseAndAP99PerSecond() {
        assertThat(run.schemaVersion()).isEqualTo(2);
        for (Results.Stack s : run.stacks()) {
            assertThat(s.tenants())
                    .extracting(t -> t.name() + "/" + t.phase())
                    .containsExactly("a/calm", "noisy/calm", "a/noisy", "noisy/noisy");
            assertThat(s.tenantWindowP99Us()).containsOnlyKeys("a", "noisy");
            s.tenantWindowP99Us().values().forEach(v -> assertThat(v).hasSize(6));
            assertThat(tenant(s.name(), "noisy", "noisy").offeredPerSec()).isEqualTo(5000.0 / 5); // 5 x 200/s
            assertThat(tenant(s.name(), "a", "noisy").offeredPerSec()).isEqualTo(100.0);
        }
        assertThat(summary).contains("## Tenants", "### quotas", "Bar (p99 in 'noisy'");
    }

    @Test
    void withoutQuotasTheNoisyTenantIsServedWhatItOffers() {
        Results.Tenant n = tenant("rocksdb", "noisy", "noisy");
        assertThat(n.throttled()).isZero();
        assertThat(n.refused()).isZero();
        assertThat(n.servedWcuPerSec() + n.servedRcuPerSec()).isGreaterThan(600); // ~1000 units/s offered
    }

    @Test
    void withQuotasTheNoisyTenantIsThrottledRefusedAndHeldToItsQuota() {
        Results.Tenant n = tenant("quotas", "noisy", "noisy");
        assertThat(n.throttled()).isPositive();
        assertThat(n.refused()).isPositive();
        // Bound of the reservation bucket: rate x (phase + burst 1 s + max wait 1 s) + one request, with 0.5 s of
        // slack for the phase boundary being read a little late.
        double bound = 100 * (3 + 1 + 1 + 0.5) / 3.0;
        assertThat(n.servedWcuPerSec()).isLessThanOrEqualTo(bound);
        assertThat(n.servedRcuPerSec()).isLessThanOrEqualTo(bound);
        Results.Tenant a = tenant("quotas", "a", "noisy");
        assertThat(List.of(a.throttled(), a.refused())).containsOnly(0L); // the well-behaved tenant is untouched
    }
}
