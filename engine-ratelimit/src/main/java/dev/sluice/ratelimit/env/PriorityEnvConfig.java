package dev.sluice.ratelimit.env;

import dev.sluice.core.ConfigException;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.config.OptionValues;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The priority Env's start-up settings: initial node policy, chunk size, per-class caps and the emulated device. Node
 * configs set them as {@code env.<key>} (see {@link #OPTIONS}; every {@code *.mbps} option is in MiB/s); everything except the device can also be changed at run
 * time through {@link PriorityEnv}'s {@link dev.sluice.core.spi.IoControl} methods, the device through {@link
 * PriorityEnv#configureDevice}.
 *
 * @param classLimits caps per class (classes without an entry are uncapped)
 * @param classChunkBytes chunk sizes of single background classes (the others take {@code chunkBytes}); 0 = not cut
 * @param writeBurst burst of the write budget (how far background writes may run ahead of the device); &gt; 0
 */
public record PriorityEnvConfig(
        IoPolicy policy,
        long chunkBytes,
        Map<IoClass, ClassLimit> classLimits,
        Map<IoClass, Long> classChunkBytes,
        ContractDevice device,
        Duration writeBurst) {

    /** A class cap: operations and bytes per second; ≤ 0 means no cap on that dimension. */
    public record ClassLimit(double opsPerSecond, double bytesPerSecond) {}

    static final double MIB = Option.MIB;

    // ---- options (env.<key>); every *.mbps option is in MiB/s (2^20 bytes per second) ----

    /** The smallest non-zero bandwidth a rate option takes (MiB/s): 10 KiB/s. Below these a native wait overflows. */
    static final double MIN_MBPS = 0.01;
    /** The smallest non-zero operation rate a rate option takes (IOPS, ops/s, tokens/s). */
    static final double MIN_OPS = 1;

    public static final Option<String> POLICY = Option.choiceOption(
            "policy",
            "passthrough",
            List.of("passthrough", "cruisedb", "flexengine", "calcspar", "calcspar-static", "calcspar-dynamic"),
            "initial node policy (calcspar-static / calcspar-dynamic: Calcspar Fig. 19's SA 6:3:1 and DA allocators over"
                    + " the same three queues and paid IOPS, for comparison)");
    public static final Option<Double> POLICY_STARVATION_MS = Option.doubleOption(
            "policy.starvation.ms", 50, 0, 60_000, "ms", "anti-starvation bound of cruisedb and calcspar (0 = none)");
    public static final Option<Double> POLICY_NODE_MBPS = Option.rateOption(
            "policy.node.mbps",
            0,
            MIN_MBPS,
            1e7,
            Option.MIB_PER_SECOND,
            "node token rate for cruisedb/flexengine (0 = flexengine uses the device's larger bandwidth cap; cruisedb"
                    + " runs without a budget)");
    public static final Option<Double> POLICY_NODE_WRITE_MBPS = Option.rateOption(
            "policy.node.write.mbps",
            0,
            MIN_MBPS,
            1e7,
            Option.MIB_PER_SECOND,
            "write-bytes node budget (DEVICE.md, \"The write budget\"): only writes (WAL, flush and compaction output)"
                    + " take its tokens; background writes wait for them, foreground writes and every read never do,"
                    + " so the scheduler releases no more writes than the device absorbs and WAL writes do not queue"
                    + " behind background writes in the device. 0 = automatic: env.device.write.mbps for flexengine,"
                    + " and for cruisedb with a node budget, when the device is enabled; otherwise none. Applies to"
                    + " cruisedb, flexengine, calcspar-static and calcspar-dynamic");
    public static final Option<Double> POLICY_NODE_WRITE_BURST_MS = Option.doubleOption(
            "policy.node.write.burst.ms",
            2,
            0.01,
            1000,
            "ms",
            "burst of the write budget, in time at its rate: how far background writes may run ahead of the device,"
                    + " so the most a WAL write waits behind them is this plus one chunk (env.chunk.kb); smaller"
                    + " bounds the WAL's wait tighter, at the cost of background throughput lost to the scheduler's"
                    + " wake-up lateness (DEVICE.md, \"The write budget\")");
    public static final Option<Double> POLICY_NODE_IOPS = Option.rateOption(
            "policy.node.iops",
            0,
            MIN_OPS,
            1e9,
            "I/O units/s",
            "node token rate in I/O units per second for cruisedb/flexengine (0 = none)");
    public static final Option<Double> POLICY_FLUSH_WEIGHT =
            Option.doubleOption("policy.flush.weight", 10, 0.001, 1e6, "", "flexengine weight of flush I/O");
    public static final Option<Double> POLICY_COMPACTION_WEIGHT = Option.doubleOption(
            "policy.compaction.weight", 1, 0.001, 1e6, "", "flexengine weight of compaction and prefetch I/O");
    public static final Option<Double> POLICY_PAID_IOPS = Option.rateOption(
            "policy.paid.iops",
            0,
            MIN_OPS,
            1e9,
            "tokens/s",
            "calcspar tokens per second (0 = device.iops, when the emulated device is enabled)");
    public static final Option<Double> POLICY_MIN_WINDOW = Option.doubleOption(
            "policy.min.window", 0.1, 0, 1, "s", "calcspar smallest time window of the lower queues");
    public static final Option<Double> POLICY_PACE_MS = Option.doubleOption(
            "policy.pace.ms",
            20,
            0,
            1000,
            "ms",
            "calcspar: by t into each second at most paid IOPS x (t + pace) tokens are granted, so a flush or L0"
                    + " compaction cannot take a whole second's tokens at once (0 = refresh once a second, the paper)");
    /** The smallest chunk size other than 0 (never cut), KiB: a smaller positive value would round to 0 bytes. */
    static final double MIN_CHUNK_KB = 1;

    public static final Option<Double> CHUNK_KB = Option.rateOption(
            "chunk.kb",
            256,
            MIN_CHUNK_KB,
            1 << 20,
            "KiB",
            "background I/Os larger than this are cut into chunks while scheduling is active (0 = never)");
    public static final Option<Boolean> DEVICE_ENABLED = Option.booleanOption(
            "device.enabled", false, "emulate a cloud volume (Calcspar's contract model, see DEVICE.md)");
    public static final Option<Double> DEVICE_IOPS =
            Option.rateOption("device.iops", 3000, MIN_OPS, 1e9, "IOPS", "paid IOPS (0 = no IOPS contract)");
    public static final Option<Double> DEVICE_READ_MBPS = Option.rateOption(
            "device.read.mbps", 125, MIN_MBPS, 1e7, Option.MIB_PER_SECOND, "read bandwidth cap (0 = none)");
    public static final Option<Double> DEVICE_WRITE_MBPS = Option.rateOption(
            "device.write.mbps", 125, MIN_MBPS, 1e7, Option.MIB_PER_SECOND, "write bandwidth cap (0 = none)");
    public static final Option<Double> DEVICE_LATENCY_US =
            Option.doubleOption("device.latency.us", 300, 0, 1e6, "µs", "base latency of an I/O with a regular token");
    public static final Option<Double> DEVICE_OVERDRAFT_POOL =
            Option.doubleOption("device.overdraft.pool", 0, 0, 1e12, "tokens", "borrowing pool size (0 = device.iops)");
    public static final Option<Double> DEVICE_IO_UNIT_KB =
            Option.doubleOption("device.io.unit.kb", 256, 0.5, 65536, "KiB", "I/O size that costs one IOPS token");

    /**
     * {@code chunk.<class>.kb}: the chunk size of one background class; unset = {@link #CHUNK_KB}. A write chunk in the
     * device's write queue is what a WAL write waits behind, and each chunk pays the device's per-I/O latency, so a
     * paced class can take smaller chunks than an unpaced compaction.
     */
    public static final Map<IoClass, Option<Double>> CHUNK_CLASS_KB;

    /** {@code limit.<class>.ops}: cap on the class's operations per second. */
    public static final Map<IoClass, Option<Double>> LIMIT_OPS;

    /** {@code limit.<class>.mbps}: cap on the class's bandwidth. */
    public static final Map<IoClass, Option<Double>> LIMIT_MBPS;

    /** Every option (keys without the {@code env.} prefix). */
    public static final OptionSet OPTIONS;

    static {
        EnumMap<IoClass, Option<Double>> ops = new EnumMap<>(IoClass.class);
        EnumMap<IoClass, Option<Double>> mbps = new EnumMap<>(IoClass.class);
        EnumMap<IoClass, Option<Double>> chunks = new EnumMap<>(IoClass.class);
        List<Option<?>> all = new ArrayList<>(List.of(
                POLICY,
                POLICY_STARVATION_MS,
                POLICY_NODE_MBPS,
                POLICY_NODE_WRITE_MBPS,
                POLICY_NODE_WRITE_BURST_MS,
                POLICY_NODE_IOPS,
                POLICY_FLUSH_WEIGHT,
                POLICY_COMPACTION_WEIGHT,
                POLICY_PAID_IOPS,
                POLICY_MIN_WINDOW,
                POLICY_PACE_MS,
                CHUNK_KB,
                DEVICE_ENABLED,
                DEVICE_IOPS,
                DEVICE_READ_MBPS,
                DEVICE_WRITE_MBPS,
                DEVICE_LATENCY_US,
                DEVICE_OVERDRAFT_POOL,
                DEVICE_IO_UNIT_KB));
        for (IoClass c : IoClass.values()) {
            String k = "limit." + c.name().toLowerCase(Locale.ROOT);
            ops.put(
                    c,
                    Option.rateOption(k + ".ops", 0, MIN_OPS, 1e12, "ops/s", "cap on " + c + " operations (0 = none)"));
            mbps.put(
                    c,
                    Option.rateOption(
                            k + ".mbps",
                            0,
                            MIN_MBPS,
                            1e9,
                            Option.MIB_PER_SECOND,
                            "cap on " + c + " bandwidth (0 = none)"));
            all.add(ops.get(c));
            all.add(mbps.get(c));
        }
        for (IoClass c : IoClass.values()) {
            if (c.isBackground()) {
                chunks.put(c, chunkOption(c));
                all.add(chunks.get(c));
            }
        }
        CHUNK_CLASS_KB = Collections.unmodifiableMap(chunks);
        LIMIT_OPS = Collections.unmodifiableMap(ops);
        LIMIT_MBPS = Collections.unmodifiableMap(mbps);
        OPTIONS = OptionSet.of(all);
    }

    private static Option<Double> chunkOption(IoClass c) {
        String cls = c.name().toLowerCase(Locale.ROOT);
        return Option.optionalRateOption(
                "chunk." + cls + ".kb",
                "(env.chunk.kb)",
                MIN_CHUNK_KB,
                1 << 20,
                "KiB",
                c + " I/Os larger than this are cut into chunks of this size while scheduling is active (0 = never;"
                        + " unset = env.chunk.kb). A write chunk in the device's write queue is what a WAL write waits"
                        + " behind, and each chunk pays the device's per-I/O latency: a class paced by env.limit." + cls
                        + ".mbps can take small chunks without losing throughput");
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
        classChunkBytes = Collections.unmodifiableMap(
                classChunkBytes.isEmpty() ? new EnumMap<>(IoClass.class) : new EnumMap<>(classChunkBytes));
        classChunkBytes.forEach((c, b) -> {
            requireBackground(c);
            if (b == null || b < 0) {
                throw new IllegalArgumentException("chunk bytes of " + c + " must be ≥ 0, got " + b);
            }
        });
        if (device == null) {
            throw new IllegalArgumentException("device must not be null (use ContractDevice.DISABLED)");
        }
        if (writeBurst == null || writeBurst.isNegative() || writeBurst.isZero()) {
            throw new IllegalArgumentException("writeBurst must be > 0, got " + writeBurst);
        }
    }

    /** Pass-through policy, 256 KiB chunks, no caps, no device. */
    public static PriorityEnvConfig defaults() {
        return fromOptions(Map.of());
    }

    /** @throws IllegalArgumentException unless {@code c} is background I/O, the only I/O cut into chunks */
    static void requireBackground(IoClass c) {
        if (!c.isBackground()) {
            throw new IllegalArgumentException(
                    "only background I/O (flush, compaction, prefetch) is cut into chunks, not " + c);
        }
    }

    public PriorityEnvConfig withPolicy(IoPolicy p) {
        return new PriorityEnvConfig(p, chunkBytes, classLimits, classChunkBytes, device, writeBurst);
    }

    public PriorityEnvConfig withDevice(ContractDevice d) {
        return new PriorityEnvConfig(policy, chunkBytes, classLimits, classChunkBytes, d, writeBurst);
    }

    public PriorityEnvConfig withClassLimit(IoClass c, double opsPerSecond, double bytesPerSecond) {
        EnumMap<IoClass, ClassLimit> m = new EnumMap<>(IoClass.class);
        m.putAll(classLimits);
        m.put(c, new ClassLimit(opsPerSecond, bytesPerSecond));
        return new PriorityEnvConfig(policy, chunkBytes, m, classChunkBytes, device, writeBurst);
    }

    /** This config with {@code ioClass}'s own chunk size ({@link #classChunkBytes}); bytes ≥ 0, 0 = not cut. */
    public PriorityEnvConfig withClassChunkBytes(IoClass ioClass, long bytes) {
        EnumMap<IoClass, Long> m = new EnumMap<>(IoClass.class);
        m.putAll(classChunkBytes);
        m.put(ioClass, bytes);
        return new PriorityEnvConfig(policy, chunkBytes, classLimits, m, device, writeBurst);
    }

    /**
     * Parses {@code env.*} options (without the prefix). Missing keys take their defaults; an unknown key or a bad value
     * is a {@link ConfigException} naming the key, the value and what is allowed.
     */
    public static PriorityEnvConfig fromOptions(Map<String, String> options) {
        OptionValues p = OPTIONS.parse("env.", options);
        boolean deviceOn = p.get(DEVICE_ENABLED);
        double iops = p.get(DEVICE_IOPS);
        ContractDevice device = new ContractDevice(
                deviceOn,
                iops,
                p.get(DEVICE_READ_MBPS) * MIB,
                p.get(DEVICE_WRITE_MBPS) * MIB,
                Duration.ofNanos((long) (p.get(DEVICE_LATENCY_US) * 1000)),
                p.get(DEVICE_OVERDRAFT_POOL),
                (long) (p.get(DEVICE_IO_UNIT_KB) * 1024));

        Duration starvation = Duration.ofNanos((long) (p.get(POLICY_STARVATION_MS) * 1e6));
        double nodeBytes = p.get(POLICY_NODE_MBPS) * MIB;
        double nodeOps = p.get(POLICY_NODE_IOPS);
        double writeBytes = p.get(POLICY_NODE_WRITE_MBPS) * MIB;
        // the automatic write budget: the emulated device's write bandwidth (0 when disabled or uncapped)
        double deviceWrite = deviceOn ? device.writeBytesPerSecond() : 0;
        IoPolicy policy = switch (p.get(POLICY)) {
            case "passthrough" -> IoPolicy.passThrough();
            case "cruisedb" -> {
                IoPolicy.StrictPriority c = IoPolicy.cruiseDb(starvation);
                IoPolicy.NodeBudget b = new IoPolicy.NodeBudget(nodeOps, nodeBytes);
                // without a node budget cruisedb stays in its in-flight mode and gets no automatic write budget
                double w = writeBytes > 0 ? writeBytes : b.isLimited() ? deviceWrite : 0;
                yield new IoPolicy.StrictPriority(c.tiers(), starvation, b.withWriteBytesPerSecond(w));
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
                        List.of(1.0, p.get(POLICY_FLUSH_WEIGHT), p.get(POLICY_COMPACTION_WEIGHT)),
                        true,
                        new IoPolicy.NodeBudget(nodeOps, bytes, writeBytes > 0 ? writeBytes : deviceWrite));
            }
            case "calcspar", "calcspar-static", "calcspar-dynamic" -> {
                String name = p.get(POLICY);
                double paid = p.get(POLICY_PAID_IOPS);
                if (paid <= 0) {
                    paid = deviceOn ? iops : 0;
                }
                if (paid <= 0) {
                    throw new ConfigException(
                            "env.policy = " + name + " needs paid IOPS: set env.policy.paid.iops"
                                    + " (> 0) or enable the emulated device (env.device.enabled = true, with env.device.iops > 0)");
                }
                IoPolicy.TimeWindows t = IoPolicy.calcspar(paid);
                if (name.equals("calcspar") && writeBytes > 0) {
                    throw new ConfigException("env.policy.node.write.mbps = " + p.get(POLICY_NODE_WRITE_MBPS)
                            + " needs a policy with a node budget (cruisedb, flexengine, calcspar-static,"
                            + " calcspar-dynamic); env.policy = calcspar has none");
                }
                IoPolicy.NodeBudget budget = new IoPolicy.NodeBudget(paid, 0, writeBytes);
                yield switch (name) {
                    // Fig. 19 "SA": the paid IOPS split 6:3:1 among the three queues, none strict
                    case "calcspar-static" ->
                        new IoPolicy.WeightedFair(t.tiers(), List.of(6.0, 3.0, 1.0), false, budget);
                    // Fig. 19 "DA": the top queue takes what it uses, the others what it leaves, in priority order
                    case "calcspar-dynamic" -> new IoPolicy.StrictPriority(t.tiers(), starvation, budget);
                    default ->
                        new IoPolicy.TimeWindows(
                                t.tiers(),
                                paid,
                                p.get(POLICY_MIN_WINDOW),
                                starvation,
                                Duration.ofNanos(Math.round(p.get(POLICY_PACE_MS) * 1e6)));
                };
            }
            default -> throw new IllegalStateException("unreachable: " + POLICY + " allowed " + p.get(POLICY));
        };
        if (policy instanceof IoPolicy.PassThrough && writeBytes > 0) {
            throw new ConfigException("env.policy.node.write.mbps = " + p.get(POLICY_NODE_WRITE_MBPS)
                    + " needs a policy with a node budget (cruisedb, flexengine, calcspar-static, calcspar-dynamic);"
                    + " env.policy = passthrough has none");
        }

        EnumMap<IoClass, ClassLimit> limits = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            double ops = p.get(LIMIT_OPS.get(c));
            double mbps = p.get(LIMIT_MBPS.get(c));
            if (ops > 0 || mbps > 0) {
                limits.put(c, new ClassLimit(ops, mbps * MIB));
            }
        }
        EnumMap<IoClass, Long> classChunks = new EnumMap<>(IoClass.class);
        CHUNK_CLASS_KB.forEach((c, o) -> {
            Double kb = p.get(o);
            if (kb != null) {
                classChunks.put(c, (long) (kb * 1024));
            }
        });
        return new PriorityEnvConfig(
                policy, (long) (p.get(CHUNK_KB) * 1024), limits, classChunks, device, Duration.ofNanos((long)
                        (p.get(POLICY_NODE_WRITE_BURST_MS) * 1e6)));
    }
}
