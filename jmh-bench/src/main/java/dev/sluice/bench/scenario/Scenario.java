package dev.sluice.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed, validated scenario: preload, phases, device model and the stacks to compare (the first is the baseline).
 * See {@link ScenarioParser} for the file format and docs/benchmarks.md for the shipped scenarios.
 *
 * @param source where it was read from (a file path or {@code classpath:scenarios/NAME.scenario})
 * @param text the file's text, kept so a child JVM and results.json see exactly what was run
 * @param device options of the emulated device, keys without the {@code device.} prefix (e.g. {@code iops})
 * @param tenants the {@code [tenants]} section of a multi-tenant scenario, or null
 */
public record Scenario(
        String name,
        String description,
        String source,
        String text,
        long seed,
        PreloadSpec preload,
        List<PhaseSpec> phases,
        Map<String, String> device,
        List<StackSpec> stacks,
        TenantsSpec tenants) {
    /** A single-tenant scenario. */
    public Scenario(
            String name,
            String description,
            String source,
            String text,
            long seed,
            PreloadSpec preload,
            List<PhaseSpec> phases,
            Map<String, String> device,
            List<StackSpec> stacks) {
        this(name, description, source, text, seed, preload, phases, device, stacks, null);
    }

    public Scenario {
        phases = List.copyOf(phases);
        device = Map.copyOf(device);
        stacks = List.copyOf(stacks);
    }

    public int totalSeconds() {
        return phases.stream().mapToInt(PhaseSpec::durationSeconds).sum();
    }

    public StackSpec baseline() {
        return stacks.get(0);
    }

    /**
     * The same scenario lasting {@code seconds} in total: a single phase gets that duration; several phases are scaled
     * in proportion (each at least 1 s, the last one absorbing rounding).
     */
    public Scenario withDuration(int seconds) {
        if (seconds < phases.size()) {
            throw new IllegalArgumentException(
                    "--duration " + seconds + " is shorter than one second per phase (" + phases.size() + " phases)");
        }
        int total = totalSeconds();
        List<PhaseSpec> out = new ArrayList<>();
        int used = 0;
        for (int i = 0; i < phases.size(); i++) {
            PhaseSpec p = phases.get(i);
            int d;
            if (i == phases.size() - 1) {
                d = seconds - used;
            } else {
                d = (int) Math.max(1, Math.round((double) p.durationSeconds() * seconds / total));
                d = Math.min(d, seconds - used - (phases.size() - 1 - i));
            }
            used += d;
            out.add(p.withDuration(d));
        }
        return new Scenario(name, description, source, text, seed, preload, out, device, stacks, tenants);
    }

    /** Only the named stacks, in scenario order (the first kept one becomes the baseline). */
    public Scenario withStacks(Set<String> names) {
        List<StackSpec> kept =
                stacks.stream().filter(s -> names.contains(s.name())).toList();
        List<String> unknown = names.stream()
                .filter(n -> stacks.stream().noneMatch(s -> s.name().equals(n)))
                .toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("--stacks: unknown stack(s) " + unknown + "; scenario '" + name
                    + "' has " + stacks.stream().map(StackSpec::name).toList());
        }
        return new Scenario(name, description, source, text, seed, preload, phases, device, kept, tenants);
    }
}
