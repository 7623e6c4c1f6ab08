package dev.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionTest {
    private static final Option<Double> RATIO = Option.doubleOption("ratio", 5, 1, 1000, "", "level size ratio");
    private static final Option<Long> MAX_BYTES =
            Option.longOption("max.bytes", 256L << 20, 1 << 20, 1L << 40, "bytes", "most bytes per compaction");
    private static final Option<String> SCOPE =
            Option.choiceOption("scope", "all", List.of("all", "writes"), "which requests take a token");
    private static final Option<Boolean> ENABLED = Option.booleanOption("enabled", false, "emulate a device");
    private static final OptionSet SET = OptionSet.of(RATIO, MAX_BYTES, SCOPE, ENABLED);

    @Test
    void parsesTypedValuesAndFillsDefaults() {
        OptionValues v = SET.parse("control.x.", Map.of("ratio", " 2.5 ", "scope", "WRITES", "max.bytes", "1_048_576"));
        assertThat(v.get(RATIO)).isEqualTo(2.5);
        assertThat(v.get(SCOPE)).isEqualTo("writes");
        assertThat(v.get(MAX_BYTES)).isEqualTo(1L << 20);
        assertThat(v.get(ENABLED)).isFalse();
        assertThat(v.asStrings())
                .containsEntry("ratio", "2.5")
                .containsEntry("max.bytes", "1048576")
                .containsEntry("enabled", "false");
        // Rendered values parse back to the same values.
        assertThat(SET.parse("", v.asStrings()).asStrings()).isEqualTo(v.asStrings());
        assertThat(SET.defaults().get(RATIO)).isEqualTo(5.0);
    }

    @Test
    void badValuesNameTheKeyTheValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> SET.parse("control.x.", Map.of("ratio", "0.5")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("control.x.ratio = '0.5' is out of range (allowed: 1 to 1000)");
        assertThatThrownBy(() -> SET.parse("control.x.", Map.of("ratio", "fast")))
                .hasMessage("control.x.ratio = 'fast' is not a number (allowed: 1 to 1000)");
        assertThatThrownBy(() -> SET.parse("", Map.of("ratio", "NaN"))).hasMessageContaining("not a finite number");
        assertThatThrownBy(() -> SET.parse("", Map.of("max.bytes", "1.5")))
                .hasMessage("max.bytes = '1.5' is not a whole number (allowed: 1048576 to 1099511627776 bytes)");
        assertThatThrownBy(() -> SET.parse("", Map.of("scope", "reads")))
                .hasMessage("scope = 'reads' is not allowed (allowed: all, writes)");
        assertThatThrownBy(() -> SET.parse("", Map.of("enabled", "yes")))
                .hasMessage("enabled = 'yes' is not true or false (allowed: true, false)");
        assertThatThrownBy(() -> SET.parse("env.", Map.of("ratio", "  ")))
                .hasMessage("env.ratio is empty (allowed: 1 to 1000)");
        assertThatThrownBy(() -> MAX_BYTES.check(5L))
                .hasMessage("max.bytes = 5 is out of range (allowed: 1048576 to 1099511627776 bytes)");
    }

    @Test
    void unknownKeysAreRefusedNamingTheAllowedOnes() {
        assertThat(SET.unknownKeys(List.of("ratio", "zeta", "alpha"))).containsExactly("alpha", "zeta");
        assertThatThrownBy(() -> SET.parse("control.x.", Map.of("ratoi", "2")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("unknown option [control.x.ratoi]; allowed: [control.x.enabled, control.x.max.bytes,"
                        + " control.x.ratio, control.x.scope]");
    }

    @Test
    void durationsAreComparedWithoutOverflow() {
        Option<Duration> tick = Option.millisOption(
                "tick.period.ms", Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMinutes(1), "tick");
        assertThat(tick.parse("250")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> tick.check(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tick.period.ms = PT")
                .hasMessageEndingWith("is out of range (allowed: 10 to 60000 ms)");
        assertThatThrownBy(() -> tick.check(Duration.ofSeconds(Long.MIN_VALUE)))
                .hasMessageEndingWith("is out of range (allowed: 10 to 60000 ms)");
        assertThatThrownBy(() -> tick.check(null)).hasMessage("tick.period.ms must be set (allowed: 10 to 60000 ms)");
    }

    @Test
    void rendersItsReferenceRow() {
        assertThat(MAX_BYTES.referenceRow("control.x."))
                .isEqualTo("| `control.x.max.bytes` | `268435456` | bytes | 1048576 to 1099511627776 | most bytes per"
                        + " compaction |");
        Option<String> noDefault =
                Option.of("file", "path", null, "(none)", true, s -> s, s -> null, s -> s, "a | path", "", "doc");
        assertThat(noDefault.referenceRow("")).isEqualTo("| `file` | (none) |  | a \\| path | doc |");
        assertThat(SET.referenceTable("env."))
                .startsWith(Option.REFERENCE_HEADER + "\n| `env.enabled` |")
                .contains("| `env.scope` | `all` |  | all, writes | which requests take a token |");
    }

    @Test
    void anOptionalRateIsUnsetZeroOrInItsRange() {
        Option<Double> chunk = Option.optionalRateOption("chunk.kb", "(node's)", 1, 1024, "KiB", "chunk size");
        OptionSet set = OptionSet.of(chunk);
        assertThat(set.parse("env.", Map.of()).get(chunk)).isNull();
        assertThat(set.parse("env.", Map.of("chunk.kb", "")).get(chunk)).isNull();
        assertThat(set.parse("env.", Map.of("chunk.kb", "0")).get(chunk)).isZero();
        assertThat(set.parse("env.", Map.of("chunk.kb", "1_024")).get(chunk)).isEqualTo(1024);
        assertThat(set.parse("env.", Map.of()).asStrings()).containsEntry("chunk.kb", "");
        for (String bad : new String[] {"0.5", "2048", "-1"}) {
            assertThatThrownBy(() -> set.parse("env.", Map.of("chunk.kb", bad)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("env.chunk.kb")
                    .hasMessageContaining("out of range");
        }
        assertThatThrownBy(() -> set.parse("env.", Map.of("chunk.kb", "NaN")))
                .hasMessageContaining("not a finite number");
        assertThat(chunk.referenceRow("env."))
                .isEqualTo("| `env.chunk.kb` | (node's) | KiB | 0, or 1 to 1024 | chunk size |");
    }

    @Test
    void declarationErrorsAreCaughtWhenTheOptionIsDefined() {
        assertThatThrownBy(() -> Option.doubleOption("k", 20, 0, 10, "", "doc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default of option k is out of range");
        assertThatThrownBy(() -> OptionSet.of(RATIO, RATIO)).hasMessageContaining("'ratio' is declared twice");
        assertThatThrownBy(() -> SET.parse("", Map.of()).get(Option.booleanOption("other", true, "d")))
                .hasMessageContaining("'other' is not declared");
    }

    @Test
    void legacyDefaultDashDocMapsStillDeclareOptions() {
        OptionSet legacy = OptionSet.fromLegacy(Map.of("mode", "overloaded — overloaded or quota"));
        Option<?> mode = legacy.get("mode").orElseThrow();
        assertThat(mode.defaultText()).isEqualTo("overloaded");
        assertThat(mode.doc()).isEqualTo("overloaded or quota");
        assertThat(legacy.parse("control.t.", Map.of("mode", "quota")).asStrings())
                .containsEntry("mode", "quota");
    }
}
