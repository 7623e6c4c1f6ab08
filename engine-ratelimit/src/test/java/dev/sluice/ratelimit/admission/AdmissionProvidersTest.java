package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.base.Ticker;
import dev.sluice.core.ConfigException;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.IoControl;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The admission providers read their options with the declared types, ranges and units. */
class AdmissionProvidersTest {
    /** A context with the given option values; gates are closed at once. */
    private record Ctx(Map<String, String> options) implements ControlContext {
        @Override
        public List<String> partitions() {
            return List.of("p");
        }

        @Override
        public Ticker ticker() {
            return Ticker.systemTicker();
        }

        @Override
        public long tickNanos() {
            return 1_000_000_000L;
        }

        @Override
        public void installAdmissionGate(String partition, AdmissionGate gate) {
            gate.close();
        }

        @Override
        public Optional<IoControl> io() {
            return Optional.empty();
        }
    }

    /** Creates the loop as the node does: the user's values parsed over the declared defaults. */
    private static AdaptiveAdmission.Settings create(Map<String, String> options) {
        AdmissionProviders.Adaptive p = new AdmissionProviders.Adaptive();
        Map<String, String> merged =
                p.optionSet().parse("control.admission.", options).asStrings();
        return ((AdaptiveAdmission) p.create(new Ctx(merged))).settings();
    }

    @Test
    void deviceMbpsIsMiBPerSecondLikeTheEnvs() {
        AdaptiveAdmission.Settings s = create(Map.of("device.read.mbps", "200", "device.write.mbps", "40"));
        assertThat(s.deviceReadBytesPerSecond()).isEqualTo(200.0 * 1024 * 1024);
        assertThat(s.deviceWriteBytesPerSecond()).isEqualTo(40.0 * 1024 * 1024);
        assertThat(new AdmissionProviders.Adaptive()
                        .optionSet()
                        .get("device.read.mbps")
                        .orElseThrow()
                        .unit())
                .isEqualTo("MiB/s");
    }

    @Test
    void defaultsComeFromTheDescriptors() {
        AdaptiveAdmission.Settings s = create(Map.of());
        assertThat(s.k1()).isEqualTo(0.5);
        assertThat(s.k2()).isEqualTo(0.4);
        assertThat(s.periodNanos()).isEqualTo(10_000_000_000L);
        assertThat(s.watermarkSource()).isEqualTo(WatermarkSource.MEMTABLE);
        assertThat(s.deviceReadBytesPerSecond()).isZero();
    }

    @Test
    void debtWindowIsOffByDefaultAndRefusesANegativeValueByName() {
        assertThat(create(Map.of()).debtWindowSeconds()).isZero();
        assertThat(create(Map.of("debt.window.seconds", "300")).debtWindowSeconds())
                .isEqualTo(300);
        assertThatThrownBy(() -> create(Map.of("debt.window.seconds", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.admission.debt.window.seconds = '-1' is out of range");
    }

    @Test
    void targetMustBeBelowHigh() {
        assertThatThrownBy(() -> create(Map.of("watermark.target", "0.9", "watermark.high", "0.8")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watermark.target = 0.9")
                .hasMessageContaining("watermark.high = 0.8");
    }
}
