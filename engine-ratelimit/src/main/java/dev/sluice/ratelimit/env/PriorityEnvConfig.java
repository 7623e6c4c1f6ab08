package dev.sluice.ratelimit.env;

import dev.sluice.core.ConfigException;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The priority Env's start-up settings: initial node policy, chunk size, per-class caps and the emulated device. Node
 * configs set them as {@code env.<key>} (see {@link #OPTIONS}); everything except the device can also be changed at run
 * time through {@link PriorityEnv}'s {@link dev.sluice.core.spi.IoControl} methods, the device through {@link
 * PriorityEnv#configureDevice}.
 *
 * @param classLimits caps per class (classes without an entry are uncapped)
 */
public record PriorityEnvConfig(
        IoPolicy policy, long chunkBytes, Map<IoClass, ClassLimit> classLimits, ContractDevice device) {

    /** A class cap: operations and bytes per second; ≤ 0 means no cap on that dimension. */
    public record ClassLimit(double opsPerSecond, double bytesPerSecond) {}

    static final double MIB = 1024.0 * 1024.0;

    /** Every option key with "default — meaning" (MiB = 2^20 bytes). */
    public static final Map<String, String> OPTIONS;

    static {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("policy", "passthrough — initial node policy: passthrough, cruisedb, flexengine or calcspar");
        o.put("policy.starvation.ms", "50 — anti-starvation bound of cruisedb and calcspar, ms (0 = none)");
        o.put(
                "policy.node.mbps",
                "0 — node token rate in MiB/s for cruisedb/flexengine (0 = flexengine uses the"
                        + " device's larger bandwidth cap; cruisedb runs without a budget)");
        o.put("policy.node.iops", "0 — node token rate in I/O units per second for cruisedb/flexengine (0 = none)");
        o.put("policy.flush.weight", "10 — flexengine weight of flush I/O");
        o.put("policy.compaction.weight", "1 — flexengine weight of compaction and prefetch I/O");
        o.put("policy.paid.iops", "0 — calcspar tokens per second (0 = device.iops)");
        o.put("policy.min.window", "0.1 — calcspar smallest time window of the lower queues, fraction of a second");
        o.put(
                "chunk.kb",
                "256 — background I/Os larger than this (KiB) are cut into chunks while scheduling is"
                        + " active (0 = never)");
        o.put("device.enabled", "false — emulate a cloud volume (Calcspar's contract model, see DEVICE.md)");
        o.put("device.iops", "3000 — paid IOPS (0 = no IOPS contract)");
        o.put("device.read.mbps", "125 — read bandwidth cap, MiB/s (0 = none)");
        o.put("device.write.mbps", "125 — write bandwidth cap, MiB/s (0 = none)");
        o.put("device.latency.us", "300 — base latency of an I/O with a regular token, µs");
        o.put("device.overdraft.pool", "0 — borrowing pool size in tokens (0 = device.iops)");
        o.put("device.io.unit.kb", "256 — I/O size that costs one IOPS token, KiB");
        for (IoClass c : IoClass.values()) {
            String k = c.name().toLowerCase(Locale.ROOT);
            o.put("limit." + k + ".ops", "0 — cap on " + c + " operations per second (0 = none)");
            o.put("limit." + k + ".mbps", "0 — cap on " + c + " MiB per second (0 = none)");
        }
        OPTIONS = Collections.unmodifiableMap(o);
    }

    public PriorityEnvConfig {
        if (policy == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        if (chunkBytes < 0) {
            throw new IllegalArgumentException("chunkBytes must be ≥ 0, got " + chunkBytes);
        }
        classLimits = Collections.unmodifiableMap(
                classLimits.isEmpty() ? new EnumMap<>(IoClass.class) : new EnumMap<>(classLimits));
        if (device == null) {
            throw new IllegalArgumentException("device must not be null (use ContractDevice.DISABLED)");
        }
    }

    /** Pass-through policy, 256 KiB chunks, no caps, no device. */
    public static PriorityEnvConfig defaults() {
        return fromOptions(Map.of());
    }

    public PriorityEnvConfig withPolicy(IoPolicy p) {
        return new PriorityEnvConfig(p, chunkBytes, classLimits, device);
    }

    public PriorityEnvConfig withDevice(ContractDevice d) {
        return new PriorityEnvConfig(policy, chunkBytes, classLimits, d);
    }

    public PriorityEnvConfig withClassLimit(IoClass c, double opsPerSecond, double bytesPerSecond) {
        EnumMap<IoClass, ClassLimit> m = new EnumMap<>(IoClass.class);
        m.putAll(classLimits);
        m.put(c, new ClassLimit(opsPerSecond, bytesPerSecond));
        return new PriorityEnvConfig(policy, chunkBytes, m, device);
    }

    /**
     * Parses {@code env.*} options (without the prefix). Missing keys take their defaults; an unknown key or a bad value
     * is a {@link ConfigException} naming the key, the value and what is allowed.
     */
    public static PriorityEnvConfig fromOptions(Map<String, String> options) {
        for (String k : options.keySet()) {
            if (!OPTIONS.containsKey(k)) {
                throw new ConfigException("env." + k + " is not an option of the priority Env; known: "
                        + new TreeSet<>(OPTIONS.keySet()));
            }
        }
        Parser p = new Parser(options);
        boolean deviceOn = p.bool("device.enabled");
        double iops = p.dbl("device.iops", 0, 1e9);
        ContractDevice device = new ContractDevice(
                deviceOn,
                iops,
                p.dbl("device.read.mbps", 0, 1e7) * MIB,
                p.dbl("device.write.mbps", 0, 1e7) * MIB,
                Duration.ofNanos((long) (p.dbl("device.latency.us", 0, 1e6) * 1000)),
                p.dbl("device.overdraft.pool", 0, 1e12),
                (long) (p.dbl("device.io.unit.kb", 0.5, 65536) * 1024));

        Duration starvation = Duration.ofNanos((long) (p.dbl("policy.starvation.ms", 0, 60_000) * 1e6));
        double nodeBytes = p.dbl("policy.node.mbps", 0, 1e7) * MIB;
        double nodeOps = p.dbl("policy.node.iops", 0, 1e9);
        String name = p.raw("policy").trim().toLowerCase(Locale.ROOT);
        IoPolicy policy = switch (name) {
            case "passthrough" -> IoPolicy.passThrough();
            case "cruisedb" -> {
                IoPolicy.StrictPriority c = IoPolicy.cruiseDb(starvation);
                yield new IoPolicy.StrictPriority(c.tiers(), starvation, new IoPolicy.NodeBudget(nodeOps, nodeBytes));
            }
            case "flexengine" -> {
                double bytes = nodeBytes > 0
                        ? nodeBytes
                        : deviceOn ? Math.max(device.readBytesPerSecond(), device.writeBytesPerSecond()) : 0;
                if (bytes <= 0 && nodeOps <= 0) {
                    throw new ConfigException("env.policy = flexengine needs a node token rate: set"
                            + " env.policy.node.mbps (> 0) or enable the device (env.device.enabled = true)");
                }
                IoPolicy.WeightedFair f = IoPolicy.flexEngineNode(bytes);
                yield new IoPolicy.WeightedFair(
                        f.tiers(),
                        List.of(
                                1.0,
                                p.dbl("policy.flush.weight", 0.001, 1e6),
                                p.dbl("policy.compaction.weight", 0.001, 1e6)),
                        true,
                        new IoPolicy.NodeBudget(nodeOps, bytes));
            }
            case "calcspar" -> {
                double paid = p.dbl("policy.paid.iops", 0, 1e9);
                if (paid <= 0) {
                    paid = deviceOn ? iops : 0;
                }
                if (paid <= 0) {
                    throw new ConfigException("env.policy = calcspar needs paid IOPS: set env.policy.paid.iops"
                            + " (> 0) or enable the device with env.device.iops > 0");
                }
                IoPolicy.TimeWindows t = IoPolicy.calcspar(paid);
                yield new IoPolicy.TimeWindows(t.tiers(), paid, p.dbl("policy.min.window", 0, 1), starvation);
            }
            default ->
                throw new ConfigException(
                        "env.policy = '" + name + "' must be one of passthrough, cruisedb, flexengine, calcspar");
        };

        EnumMap<IoClass, ClassLimit> limits = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            String k = "limit." + c.name().toLowerCase(Locale.ROOT);
            double ops = p.dbl(k + ".ops", 0, 1e12);
            double mbps = p.dbl(k + ".mbps", 0, 1e9);
            if (ops > 0 || mbps > 0) {
                limits.put(c, new ClassLimit(ops, mbps * MIB));
            }
        }
        return new PriorityEnvConfig(policy, (long) (p.dbl("chunk.kb", 0, 1 << 20) * 1024), limits, device);
    }

    private static final class Parser {
        private final Map<String, String> options;

        Parser(Map<String, String> options) {
            this.options = options;
        }

        /** The value, or the default; a value still in {@link #OPTIONS}' "default — doc" form counts as its default. */
        String raw(String key) {
            String v = options.get(key);
            if (v == null) {
                v = OPTIONS.get(key);
            }
            int doc = v.indexOf(" — ");
            return doc >= 0 ? v.substring(0, doc) : v;
        }

        double dbl(String key, double min, double max) {
            String v = raw(key).trim();
            double d;
            try {
                d = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new ConfigException(
                        "env." + key + " = '" + v + "' is not a number (allowed: " + min + " .. " + max + ")");
            }
            if (!(d >= min && d <= max)) {
                throw new ConfigException(
                        "env." + key + " = '" + v + "' is out of range (allowed: " + min + " .. " + max + ")");
            }
            return d;
        }

        boolean bool(String key) {
            String v = raw(key).trim().toLowerCase(Locale.ROOT);
            return switch (v) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new ConfigException("env." + key + " = '" + v + "' must be true or false");
            };
        }
    }
}
