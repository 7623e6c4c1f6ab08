package dev.sluice.bench.scenario;

import java.util.List;
import java.util.Map;

/**
 * One system under test: a profile, a list of controllers, and options. {@code options} holds keys exactly as {@link
 * dev.sluice.core.SluiceConfig#fromProperties} reads them ({@code tick.period.ms}, {@code env.device.iops}, {@code
 * control.admission.k1}, ...), already merged over the scenario-wide ones. {@code sysprops} are Java system properties
 * set for this stack only (its child JVM), e.g. the auto-tuned rate limiter's upper bound. {@code keyLines} maps each
 * option key to the line that set it, for error messages.
 */
public record StackSpec(
        String name,
        int line,
        String description,
        String profile,
        List<String> controls,
        Map<String, String> options,
        Map<String, String> sysprops,
        Map<String, Integer> keyLines) {
    public StackSpec {
        controls = List.copyOf(controls);
        options = Map.copyOf(options);
        sysprops = Map.copyOf(sysprops);
        keyLines = Map.copyOf(keyLines);
    }
}
