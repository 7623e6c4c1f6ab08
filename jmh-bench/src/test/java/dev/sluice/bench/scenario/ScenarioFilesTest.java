package dev.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every shipped scenario parses, names registered profiles, and fits its time budget. */
class ScenarioFilesTest {
    @Test
    void indexListsExactlyTheShippedFiles() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/scenarios"))) {
            assertThat(files.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".scenario"))
                            .map(n -> n.substring(0, n.length() - ".scenario".length())))
                    .containsExactlyInAnyOrderElementsOf(Scenarios.shipped());
        }
        assertThat(Scenarios.shipped()).contains("smoke", "quick", "cruise-a-variant", "adoc-fillrandom");
    }

    @Test
    void everyShippedScenarioParsesAndNamesKnownProfiles() {
        for (String name : Scenarios.shipped()) {
            Scenario s = Scenarios.load(name);
            assertThat(s.name()).isEqualTo(name);
            Scenarios.checkNames(s);
            if (name.endsWith("-sweep")) {
                // A parameter sweep compares settings of one stack with each other: every stack has the same profile.
                assertThat(s.stacks())
                        .extracting(StackSpec::profile)
                        .containsOnly(s.baseline().profile());
            } else {
                // A comparison's ratios are "vs stock RocksDB".
                assertThat(s.baseline().profile()).as(name).isEqualTo("rocksdb-default");
            }
        }
        // The paper comparisons also run RocksDB's own answer, the auto-tuned rate limiter.
        for (String name : List.of("quick", "cruise-a-variant", "adoc-fillrandom")) {
            assertThat(Scenarios.load(name).stacks())
                    .extracting(StackSpec::profile)
                    .contains("rocksdb-autotuned-ratelimiter");
        }
    }

    @Test
    void budgets() {
        assertThat(Scenarios.load("smoke").totalSeconds()).isLessThanOrEqualTo(20);
        Scenario quick = Scenarios.load("quick");
        // The whole run (issue 22: at most 5 minutes on 2 cores): phases plus at most the settle wait per stack stay
        // under 4 minutes, leaving a minute for the preloads (~5 s each) and the JVM starts.
        assertThat(quick.stacks().size()
                        * (quick.totalSeconds() + quick.preload().settleSeconds()))
                .isLessThanOrEqualTo(240);
        // A newcomer's first run shows Sluice: the recommended stack beside stock and RocksDB's auto-tuned limiter.
        assertThat(quick.stacks()).extracting(StackSpec::name).contains("rocksdb", "rocksdb-autotuned", "sluice");
    }

    /**
     * issue 22's "no device numbers" bar is measured on a copy of cruise-a-variant kept in docs/benchmarks; the copy
     * must be cruise-a-variant without the two {@code control.admission.device.*.mbps} options and nothing else, or
     * the bar measures a stack nobody ships (it drifted once: the copy kept the stack of an older commit).
     */
    @Test
    void theNoDeviceCopyIsCruiseAVariantWithoutTheDeviceNumbers() {
        Scenario shipped = Scenarios.load("cruise-a-variant");
        Scenario copy = Scenarios.load("../docs/benchmarks/cruise-a-variant-no-device.scenario");
        assertThat(copy.preload()).isEqualTo(shipped.preload());
        assertThat(copy.phases())
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("line") // the copy has a longer header
                .isEqualTo(shipped.phases());
        assertThat(copy.device()).isEqualTo(shipped.device());
        assertThat(copy.seed()).isEqualTo(shipped.seed());
        assertThat(copy.stacks())
                .extracting(StackSpec::name)
                .isEqualTo(shipped.stacks().stream().map(StackSpec::name).toList());
        for (int i = 0; i < shipped.stacks().size(); i++) {
            StackSpec a = shipped.stacks().get(i);
            StackSpec b = copy.stacks().get(i);
            Map<String, String> expected = new TreeMap<>(a.options());
            expected.keySet().removeIf(k -> k.startsWith("control.admission.device."));
            assertThat(new TreeMap<>(b.options())).as(a.name()).isEqualTo(expected);
            assertThat(b.profile()).as(a.name()).isEqualTo(a.profile());
            assertThat(b.controls()).as(a.name()).isEqualTo(a.controls());
            assertThat(b.sysprops()).as(a.name()).isEqualTo(a.sysprops());
        }
        assertThat(shipped.stacks().stream()
                        .filter(st -> st.name().equals("cruisedb"))
                        .findFirst()
                        .orElseThrow()
                        .options())
                .as("the shipped cruisedb stack sets the device numbers the copy leaves out")
                .containsKeys("control.admission.device.read.mbps", "control.admission.device.write.mbps");
    }

    @Test
    void unknownScenarioListsTheShippedOnes() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenarios.load("nope"))
                .hasMessageContaining("no scenario 'nope'")
                .hasMessageContaining("quick");
    }
}
