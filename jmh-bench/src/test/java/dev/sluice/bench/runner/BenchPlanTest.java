package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.scenario.Scenarios;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The up-front checks of {@code sluice bench} accept every shipped scenario as it is, and write nothing. */
class BenchPlanTest {
    @TempDir
    Path tmp;

    private static BenchRun.Request request(String scenario, Path out, String heap, boolean noDevice) {
        return new BenchRun.Request(scenario, out, null, null, null, false, false, heap, noDevice, true);
    }

    @Test
    void everyShippedScenarioPassesTheChecksWithAndWithoutTheDevice() {
        assertThat(Scenarios.shipped()).isNotEmpty();
        for (String name : Scenarios.shipped()) {
            Path out = tmp.resolve(name);
            for (boolean noDevice : new boolean[] {false, true}) {
                BenchRun.Plan plan = BenchRun.plan(request(name, out, "1g", noDevice));
                assertThat(plan.scenario().name()).isEqualTo(name);
                assertThat(plan.out()).isEqualTo(out);
            }
            assertThat(out).as("nothing written for " + name).doesNotExist();
        }
    }

    /**
     * CLI probe (2026-11-28): a second run into the same --out overwrote results.json and summary.md, left the first
     * run's charts and logs beside them, and a second run that failed left the first run's results.json as its own.
     */
    @Test
    void anOutDirectoryThatIsNotEmptyIsRefusedAndKept() throws Exception {
        Path out = tmp.resolve("earlier-run");
        java.nio.file.Files.createDirectories(out.resolve("logs"));
        java.nio.file.Files.writeString(out.resolve("results.json"), "{}");
        assertThatThrownBy(() -> BenchRun.plan(request("smoke", out, "1g", true)))
                .isInstanceOf(BenchInputException.class)
                .hasMessageContaining("--out " + out + ": the directory is not empty (it holds logs, results.json)")
                .hasMessageContaining("give a new or empty directory");
        assertThat(out.resolve("results.json")).hasContent("{}");
        Path empty = java.nio.file.Files.createDirectories(tmp.resolve("empty"));
        assertThat(BenchRun.plan(request("smoke", empty, "1g", true)).out()).isEqualTo(empty);
    }

    @Test
    void aStackDataDirectoryHoldingSomethingElseIsRefusedBeforeAnyStackRunsAndKept() throws Exception {
        Path out = tmp.resolve("out");
        // a --data-dir of its own: the default (<out>/data) is inside --out, which must be new or empty
        BenchRun.Request req =
                new BenchRun.Request("smoke", out, null, null, tmp.resolve("stores"), false, false, "1g", true, true);
        BenchRun.Plan plan = BenchRun.plan(req);
        Path data =
                plan.dataRoot().resolve("1-" + plan.scenario().stacks().get(0).name());
        java.nio.file.Files.createDirectories(data);
        java.nio.file.Files.writeString(data.resolve("mine.txt"), "precious");
        java.io.ByteArrayOutputStream console = new java.io.ByteArrayOutputStream();
        assertThatThrownBy(() -> BenchRun.run(
                        req,
                        new java.io.PrintStream(console),
                        new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                        true))
                .isInstanceOf(BenchInputException.class)
                .hasMessageContaining(data.toString())
                .hasMessageContaining("would delete it");
        assertThat(data.resolve("mine.txt")).hasContent("precious");
        assertThat(console.toString()).as("no stack ran").doesNotContain("[1/");
        // an empty directory or a store left by an interrupted run is replaced as before
        BenchRun.checkReplaceable(tmp.resolve("absent"));
        java.nio.file.Files.delete(data.resolve("mine.txt"));
        BenchRun.checkReplaceable(data);
        java.nio.file.Files.writeString(data.resolve("SLUICE"), "format=1\n");
        java.nio.file.Files.createDirectories(data.resolve("partitions"));
        BenchRun.checkReplaceable(data);
    }

    @Test
    void heapSizesAreParsedLikeTheJvmDoes() {
        assertThat(BenchRun.heapBytes("1g")).isEqualTo(1L << 30);
        assertThat(BenchRun.heapBytes("512M")).isEqualTo(512L << 20);
        assertThat(BenchRun.heapBytes("16m")).isEqualTo(16L << 20);
        assertThat(BenchRun.heapBytes("16384K")).isEqualTo(16L << 20);
        assertThat(BenchRun.heapBytes("33554432")).isEqualTo(32L << 20);
        for (String bad : new String[] {"bogus", "", "1.5g", "-1g", "1gb", "15m", "0", "99999999999999t"}) {
            assertThatThrownBy(() -> BenchRun.heapBytes(bad)).as(bad).isInstanceOf(BenchInputException.class);
        }
        // parsed, but more than any machine this runs on has: refused before a stack's JVM starts (it failed there)
        assertThatThrownBy(() -> BenchRun.heapBytes("99999t"))
                .isInstanceOf(BenchInputException.class)
                .hasMessageContaining("--heap '99999t': more than this machine's memory (");
        assertThatThrownBy(() -> BenchRun.heapBytes("2T")).hasMessageContaining("more than this machine's memory");
    }

    /** From a CLI probe (2026-11-28): each was accepted, or failed only after output had been written. */
    @Test
    void anEmptyOutARepeatedStackAndAScenarioNameThatIsAPathAreRefused() throws Exception {
        assertThatThrownBy(() -> BenchRun.plan(request("smoke", Path.of(""), "1g", true)))
                .isInstanceOf(BenchInputException.class)
                .hasMessage("--out is empty: give a directory");
        assertThatThrownBy(() -> BenchRun.plan(new BenchRun.Request(
                        "quick",
                        tmp.resolve("o"),
                        null,
                        java.util.List.of("rocksdb", "rocksdb"),
                        null,
                        false,
                        false,
                        "1g",
                        true,
                        true)))
                .isInstanceOf(BenchInputException.class)
                .hasMessageContaining("a stack is named twice");
        Path escape = tmp.resolve("escape.scenario");
        String smoke;
        try (java.io.InputStream in = Scenarios.class.getResourceAsStream("/scenarios/smoke.scenario")) {
            smoke = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        java.nio.file.Files.writeString(escape, smoke.replaceFirst("(?m)^name *=.*$", "name = ../../escape"));
        assertThatThrownBy(() -> BenchRun.plan(request(escape.toString(), tmp.resolve("o2"), "1g", true)))
                .hasMessageContaining("escape.scenario:")
                .hasMessageContaining("scenario name '../../escape' must be letters, digits");
        assertThat(tmp.resolve("o")).doesNotExist();
        assertThat(tmp.resolve("o2")).doesNotExist();
    }
}
