package dev.sluice.bench.scenario;

import dev.sluice.bench.workload.KeyDistribution;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpKind;
import dev.sluice.bench.workload.OpMix;
import dev.sluice.core.ConfigException;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a scenario file. The format is line-based, INI-like:
 *
 * <pre>
 * # comment (also after a value: "key = value  # comment")
 * name = quick                     top level: name, description, seed, and options for every stack:
 * config.block.cache.bytes = 64m     config.KEY (any SluiceConfig key), env.KEY, control.C.KEY, sysprop.KEY
 *
 * [preload]                        keys, key.bytes, value.bytes, threads, flush, settle
 * [device]                         any KEY: passed to the Env as env option device.KEY (iops, read.mbps, ...)
 * [phase NAME]                     duration, mode (open|closed), threads, mix, distribution, ... (see below)
 * [stack NAME]                     profile, controls, description, config.KEY, env.KEY, control.C.KEY, sysprop.KEY
 * [tenants]                        noisy, rcu, wcu, noisy.factor, noisy.phases, slo.ms, quota.follows.rate: every partition
 *                                  is a tenant (TenantsSpec)
 * </pre>
 *
 * <p>Phase keys: {@code duration} (30, 30s, 2m), {@code mode}, {@code threads}, {@code mix} ({@code insert:50, read:50}:
 * percentages that must sum to 100; kinds insert, update, read, scan, rmw), {@code distribution} (uniform | zipfian | latest | hotspot) with {@code
 * zipfian.theta}, {@code hotspot.keys}, {@code hotspot.ops}; {@code scan.length}; {@code measured}. Open loop only:
 * {@code rate}, {@code arrivals} (uniform | poisson), {@code dispatch} (sync: {@code threads} workers take arrivals from
 * a client queue bounded by {@code max.backlog}; async: each arrival is submitted through the async API at once, at most
 * {@code max.inflight} in flight, and {@code threads} and {@code max.backlog} are errors), {@code shape} (constant |
 * step | square | mixgraph) with {@code step.rates}, {@code step.seconds}, {@code square.low}, {@code square.high}, {@code
 * square.period}, {@code square.duty}, {@code mixgraph.mean}, {@code mixgraph.amplitude}, {@code mixgraph.period},
 * {@code mixgraph.phase}, {@code mixgraph.noise}, {@code mixgraph.interval}.
 *
 * <p>Every key is a typed {@link Option} constant below (default, range, unit). Sizes accept k, m, g suffixes (powers of
 * 1024) and underscores. Every error names the file, the line and the key, the value and what is allowed.
 * Unknown keys and sections, duplicate keys, keys that do not fit the phase's mode or shape are errors.
 */
public final class ScenarioParser {
    private static final Pattern SECTION = Pattern.compile("\\[\\s*([a-z]+)(?:\\s+([A-Za-z0-9_.-]+))?\\s*]");
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Pattern STACK_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
    private static final Pattern SCENARIO_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(s|m|h)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg])?b?", Pattern.CASE_INSENSITIVE);
    private static final List<String> STACK_PREFIXES = List.of("config.", "env.", "control.", "sysprop.");

    // ---- the keys of a scenario file, as typed descriptors (defaults, ranges and units in one place) ----

    private static final double MAX_RATE = 10_000_000;
    private static final int DAY = 24 * 3600;

    static final Option<Long> SEED = size("seed", 42L, 0, Long.MAX_VALUE, "", "seed of every random choice");

    static final Option<Long> PRELOAD_KEYS = size("keys", 0L, 0, 1_000_000_000L, "keys", "keys written before phase 1");
    static final Option<Integer> PRELOAD_KEY_BYTES = count("key.bytes", 16, 8, 4096, "bytes", "key size");
    static final Option<Integer> PRELOAD_VALUE_BYTES = count("value.bytes", 1024, 0, 16 << 20, "bytes", "value size");
    static final Option<Integer> PRELOAD_THREADS = count("threads", 2, 1, 64, "threads", "preload writers");
    static final Option<Boolean> PRELOAD_FLUSH = flag("flush", true, "flush the memtables after the preload");
    static final Option<Integer> PRELOAD_SETTLE =
            seconds("settle", 30, 0, 3600, "wait after the preload for compactions to settle");
    static final Option<Long> PRELOAD_CLUSTER_KEYS = size(
            "key.cluster.keys",
            0L,
            0,
            1L << 32,
            "keys",
            "0 = hashed key layout; n > 0 = prefix-clustered layout, n consecutive keys per cluster (Mixgraph key ranges)");
    static final OptionSet PRELOAD = OptionSet.of(
            PRELOAD_KEYS,
            PRELOAD_KEY_BYTES,
            PRELOAD_VALUE_BYTES,
            PRELOAD_THREADS,
            PRELOAD_FLUSH,
            PRELOAD_SETTLE,
            PRELOAD_CLUSTER_KEYS);

    static final Option<Integer> DURATION_KEY = seconds("duration", null, 1, DAY, "length of the phase");
    static final Option<String> MODE = Option.of(
            "mode",
            "choice",
            null,
            "(required)",
            false,
            v -> v.toLowerCase(Locale.ROOT),
            v -> List.of("open", "closed").contains(v) ? null : "is not allowed",
            v -> v,
            "open, closed",
            "",
            "closed: back-to-back requests; open: requests at a rate");
    static final Option<Integer> THREADS =
            count("threads", 8, 1, 1024, "threads", "clients (closed) or workers (open)");
    static final Option<Integer> SCAN_LENGTH = count("scan.length", 5, 1, 100_000, "keys", "keys per scan");
    static final Option<Boolean> MEASURED = flag("measured", true, "whether the phase counts in the results");
    static final Option<String> ARRIVALS =
            Option.choiceOption("arrivals", "uniform", List.of("uniform", "poisson"), "inter-arrival times");
    static final Option<String> DISPATCH =
            Option.choiceOption("dispatch", "sync", List.of("sync", "async"), "how arrivals reach the store");
    static final Option<Long> MAX_INFLIGHT =
            size("max.inflight", 1_000_000L, 1, 100_000_000, "requests", "async requests in flight");
    static final Option<Long> MAX_BACKLOG =
            size("max.backlog", 2_000_000L, 1, 100_000_000, "requests", "bound of the client queue (sync dispatch)");
    static final Option<String> DISTRIBUTION = Option.choiceOption(
            "distribution",
            "uniform",
            List.of("uniform", "zipfian", "latest", "hotspot", "clustered"),
            "key distribution (clustered: zipfian over [preload] key.cluster.keys clusters, uniform inside)");
    static final Option<Double> ZIPFIAN_THETA =
            Option.doubleOption("zipfian.theta", 0.99, 0.01, 10, "", "skew of zipfian and latest");
    static final Option<Double> HOTSPOT_KEYS =
            Option.doubleOption("hotspot.keys", 0.2, 0.0001, 1, "fraction", "share of keys that are hot");
    static final Option<Double> HOTSPOT_OPS =
            Option.doubleOption("hotspot.ops", 0.8, 0, 1, "fraction", "share of operations on hot keys");
    static final Option<String> SHAPE = Option.choiceOption(
            "shape",
            "constant",
            List.of("constant", "step", "square", "mixgraph", "capacity"),
            "open-loop rate over time");
    static final Option<String> CAPACITY_PHASE = Option.of(
            "capacity.phase",
            "phase name",
            null,
            "(required)",
            false,
            v -> v,
            v -> v.isBlank() ? "is empty" : null,
            v -> v,
            "an earlier closed-loop phase",
            "",
            "shape = capacity: the phase whose mean throughput is the capacity");
    static final Option<Double> CAPACITY_FRACTION = Option.doubleOption(
            "capacity.fraction", 0.9, 0.01, 1, "fraction", "shape = capacity: share of the capacity offered");
    static final Option<Double> RATE = rate("rate", null, 0.001, "open-loop rate");
    static final Option<Integer> STEP_SECONDS = seconds("step.seconds", null, 1, DAY, "length of each step");
    static final Option<Double> SQUARE_LOW = rate("square.low", 0.0, 0, "rate of the low half");
    static final Option<Double> SQUARE_HIGH = rate("square.high", 0.0, 0, "rate of the high half");
    static final Option<Integer> SQUARE_PERIOD = seconds("square.period", 10, 1, DAY, "period of the square wave");
    static final Option<Double> SQUARE_DUTY =
            Option.doubleOption("square.duty", 0.5, 0.01, 0.99, "fraction", "share of the period at the high rate");
    static final Option<Double> MIXGRAPH_MEAN = rate("mixgraph.mean", null, 0.001, "mean rate (default: rate)");
    static final Option<Double> MIXGRAPH_AMPLITUDE = rate("mixgraph.amplitude", null, 0, "amplitude (default: mean/2)");
    static final Option<Integer> MIXGRAPH_PERIOD = seconds("mixgraph.period", 20, 1, DAY, "period of the sine");
    static final Option<Double> MIXGRAPH_PHASE =
            Option.doubleOption("mixgraph.phase", 0, -100, 100, "", "phase offset of the sine");
    static final Option<Double> MIXGRAPH_NOISE =
            Option.doubleOption("mixgraph.noise", 0.1, 0, 1, "fraction", "relative noise on the rate");
    static final Option<Integer> MIXGRAPH_INTERVAL =
            seconds("mixgraph.interval", 1, 1, 3600, "how often the rate changes");

    static final Option<Double> TENANT_RCU =
            Option.doubleOption("rcu", 100, 0.001, 1e9, "RCU/s", "each tenant's read units per second");
    static final Option<Double> TENANT_WCU =
            Option.doubleOption("wcu", 100, 0.001, 1e9, "WCU/s", "each tenant's write units per second");
    static final Option<Double> NOISY_FACTOR = Option.doubleOption(
            "noisy.factor", 5, 0.001, 1000, "x quota", "what the noisy tenant offers in its phases, x its quota rate");
    static final Option<Double> TENANT_SLO_MS = Option.doubleOption(
            "slo.ms",
            0,
            0,
            1e6,
            "ms",
            "each tenant's latency SLO: requests completed within it, not throttled and not refused are served"
                    + " normally (normallyServedFraction); 0 = none");
    static final Option<Boolean> QUOTA_FOLLOWS_RATE = Option.booleanOption(
            "quota.follows.rate",
            false,
            "at each phase start set every quota-enforcing tenant's WCU quota to the phase's rate");
    static final OptionSet TENANTS =
            OptionSet.of(TENANT_RCU, TENANT_WCU, NOISY_FACTOR, TENANT_SLO_MS, QUOTA_FOLLOWS_RATE);

    /** A whole number, optionally with a k, m or g suffix (powers of 1024) and underscores. */
    private static Option<Long> size(String name, Long def, long min, long max, String unit, String doc) {
        return Option.of(
                name,
                "size",
                def,
                "(required)",
                false,
                ScenarioParser::parseSize,
                v -> v < min || v > max ? "is out of range" : null,
                String::valueOf,
                min + " to " + max,
                unit,
                doc);
    }

    private static Option<Integer> count(String name, int def, int min, int max, String unit, String doc) {
        return Option.of(
                name,
                "size",
                def,
                null,
                false,
                v -> {
                    long n = parseSize(v);
                    if (n > Integer.MAX_VALUE) {
                        throw new IllegalArgumentException("is out of range");
                    }
                    return (int) n;
                },
                v -> v < min || v > max ? "is out of range" : null,
                String::valueOf,
                min + " to " + max,
                unit,
                doc);
    }

    /** Whole seconds, optionally with an s, m or h suffix (30, 30s, 2m). */
    private static Option<Integer> seconds(String name, Integer def, int min, int max, String doc) {
        return Option.of(
                name,
                "duration",
                def,
                "(required)",
                false,
                ScenarioParser::parseSeconds,
                v -> v < min || v > max ? "is out of range" : null,
                String::valueOf,
                min + " to " + max,
                "s",
                doc);
    }

    private static Option<Double> rate(String name, Double def, double min, String doc) {
        return Option.of(
                name,
                "number",
                def,
                "(required)",
                false,
                v -> {
                    try {
                        return Double.parseDouble(v.replace("_", ""));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("is not a number");
                    }
                },
                v -> v >= min && v <= MAX_RATE ? null : "is out of range",
                Option::number,
                Option.number(min) + " to " + Option.number(MAX_RATE),
                "requests/s",
                doc);
    }

    /** true/yes/on or false/no/off. */
    private static Option<Boolean> flag(String name, boolean def, String doc) {
        return Option.of(
                name,
                "boolean",
                def,
                null,
                false,
                v -> switch (v.toLowerCase(Locale.ROOT)) {
                    case "true", "yes", "on" -> true;
                    case "false", "no", "off" -> false;
                    default -> throw new IllegalArgumentException("is not true or false");
                },
                v -> null,
                String::valueOf,
                "true, false (or yes, no, on, off)",
                "",
                doc);
    }

    private static long parseSize(String v) {
        Matcher m = SIZE.matcher(v.replace("_", ""));
        if (!m.matches()) {
            if (v.strip().startsWith("-")
                    && SIZE.matcher(v.strip().substring(1).replace("_", "")).matches()) {
                throw new IllegalArgumentException("is negative");
            }
            throw new IllegalArgumentException("is not a whole number (optionally with k, m or g)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is too large");
        }
        if (m.group(2) != null) {
            int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                default -> 30;
            };
            if (Long.numberOfLeadingZeros(n) <= shift) {
                throw new IllegalArgumentException("is too large");
            }
            n <<= shift;
        }
        return n;
    }

    private static int parseSeconds(String v) {
        Matcher m = DURATION.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("is not a duration (e.g. 30, 30s, 2m)");
        }
        long s;
        try {
            s = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is too large");
        }
        if (m.group(2) != null) {
            long factor = switch (m.group(2)) {
                case "m" -> 60;
                case "h" -> 3600;
                default -> 1;
            };
            s = s > Integer.MAX_VALUE ? s : s * factor;
        }
        if (s > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("is too large");
        }
        return (int) s;
    }

    private final String file;
    /** key.cluster.keys of the [preload] parsed so far (phases after it may use distribution = clustered). */
    private long clusterKeysSeen;

    private ScenarioParser(String file) {
        this.file = file;
    }

    /**
     * Parses {@code text}; {@code fileName} is used in messages (e.g. {@code quick.scenario}), {@code source} is
     * recorded in the result.
     */
    public static Scenario parse(String text, String fileName, String source) {
        // a UTF-8 byte order mark (some Windows editors write one) is not part of the first key
        String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
        return new ScenarioParser(fileName).doParse(body, source);
    }

    /** One {@code key = value} line. */
    private record Entry(String value, int line) {}

    /** The lines of one section, with bookkeeping of which keys were read. */
    private final class Section {
        final String kind;
        final String name;
        final int line;
        final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
        final Set<String> used = new LinkedHashSet<>();

        Section(String kind, String name, int line) {
            this.kind = kind;
            this.name = name;
            this.line = line;
        }

        String label() {
            return kind.isEmpty() ? "(top level)" : "[" + kind + (name == null ? "" : " " + name) + "]";
        }

        ScenarioException error(String key, String message) {
            Entry e = key == null ? null : entries.get(key);
            return new ScenarioException(file, e == null ? line : e.line, key, label() + " " + message);
        }

        boolean has(String key) {
            return entries.containsKey(key);
        }

        String str(String key, String def) {
            Entry e = entries.get(key);
            used.add(key);
            return e == null ? def : e.value;
        }

        String required(String key) {
            String v = str(key, null);
            if (v == null || v.isEmpty()) {
                throw error(null, "needs key '" + key + "'");
            }
            return v;
        }

        /** The value of {@code option} (parsed and range-checked), or its default when the key is absent. */
        <T> T get(Option<T> option) {
            return get(option, option.defaultValue());
        }

        /** The value of {@code option}, or {@code def} when the key is absent (a default that depends on other keys). */
        <T> T get(Option<T> option, T def) {
            String v = str(option.name(), null);
            if (v == null) {
                return def;
            }
            try {
                return option.parse(v);
            } catch (ConfigException e) {
                throw error(option.name(), e.getMessage());
            }
        }

        /** The value of a key without a default; {@code hint} says what to write when it is missing. */
        <T> T required(Option<T> option, String hint) {
            T v = get(option, null);
            if (v == null) {
                throw error(null, "needs key '" + option.name() + "' (" + hint + ")");
            }
            return v;
        }

        /** Keys of this section with the given prefix, in file order (marked as read). */
        List<String> withPrefix(String prefix) {
            List<String> out = new ArrayList<>();
            for (String k : entries.keySet()) {
                if (k.startsWith(prefix) && k.length() > prefix.length()) {
                    out.add(k);
                    used.add(k);
                }
            }
            return out;
        }

        void forbid(String reason, String... keys) {
            for (String k : keys) {
                if (has(k)) {
                    throw error(k, "not allowed " + reason);
                }
            }
        }

        void forbidPrefix(String prefix, String reason) {
            for (String k : entries.keySet()) {
                if (k.startsWith(prefix)) {
                    throw error(k, "not allowed " + reason);
                }
            }
        }

        /** Fails on the first key nobody read. */
        void finish(String known) {
            for (Map.Entry<String, Entry> e : entries.entrySet()) {
                if (!used.contains(e.getKey())) {
                    throw error(e.getKey(), "unknown key; known keys here: " + known);
                }
            }
        }
    }

    private Scenario doParse(String text, String source) {
        List<Section> sections = split(text);
        Section top = sections.get(0);
        String name = top.str("name", stripExtension(Path.of(file).getFileName().toString()));
        if (!SCENARIO_NAME.matcher(name).matches()) {
            // it names files: results go to <out>/<name>.scenario and bench-out/<name>-<time>; "../x" wrote outside
            // --out (a CLI probe, 2026-11-28)
            throw top.error(
                    top.has("name") ? "name" : null,
                    "scenario name '" + name + "' must be letters, digits, '.', '_' and '-', not starting with '.' (it"
                            + " names output files)");
        }
        String description = top.str("description", "");
        long seed = top.get(SEED);
        Map<String, Entry> common = stackOptions(top);
        top.finish("name, description, seed, config.*, env.*, control.*.*, sysprop.*");

        PreloadSpec preload = PreloadSpec.NONE;
        Map<String, String> device = new LinkedHashMap<>();
        Map<String, Integer> deviceLines = new LinkedHashMap<>();
        List<PhaseSpec> phases = new ArrayList<>();
        List<Section> stackSections = new ArrayList<>();
        Section tenantsSection = null;
        boolean sawPreload = false, sawDevice = false;
        for (Section s : sections.subList(1, sections.size())) {
            switch (s.kind) {
                case "preload" -> {
                    if (sawPreload) {
                        throw s.error(null, "appears twice");
                    }
                    sawPreload = true;
                    preload = preload(s);
                }
                case "device" -> {
                    if (sawDevice) {
                        throw s.error(null, "appears twice");
                    }
                    sawDevice = true;
                    for (Map.Entry<String, Entry> e : s.entries.entrySet()) {
                        s.used.add(e.getKey());
                        device.put(e.getKey(), e.getValue().value);
                        deviceLines.put("env.device." + e.getKey(), e.getValue().line);
                    }
                }
                case "phase" -> {
                    if (phases.stream().anyMatch(p -> p.name().equals(s.name))) {
                        throw s.error(null, "phase '" + s.name + "' is defined twice");
                    }
                    PhaseSpec phase = phase(s, seed + phases.size());
                    if (phase.shape() instanceof LoadShape.OfCapacity c
                            && phases.stream()
                                    .noneMatch(p -> p.name().equals(c.phase()) && p.mode() == PhaseSpec.Mode.CLOSED)) {
                        throw s.error(
                                "capacity.phase",
                                "'" + c.phase() + "' is not an earlier closed-loop phase (the capacity is the mean"
                                        + " throughput of a closed-loop phase run before this one)");
                    }
                    phases.add(phase);
                }
                case "stack" -> {
                    if (stackSections.stream().anyMatch(o -> o.name.equals(s.name))) {
                        throw s.error(null, "stack '" + s.name + "' is defined twice");
                    }
                    stackSections.add(s);
                }
                case "tenants" -> {
                    if (tenantsSection != null) {
                        throw s.error(null, "appears twice");
                    }
                    tenantsSection = s;
                }
                default ->
                    throw s.error(
                            null, "unknown section; known: [preload], [device], [phase NAME], [stack NAME], [tenants]");
            }
        }
        if (phases.isEmpty()) {
            throw new ScenarioException(file, 0, null, "no [phase NAME] section: a scenario needs at least one phase");
        }
        if (phases.stream().noneMatch(PhaseSpec::measured)) {
            // a probe (2026-11-29): every phase a warm-up ran for minutes and reported "mean 0 ops/s"
            throw new ScenarioException(
                    file,
                    phases.get(0).line(),
                    null,
                    "every phase has measured = false: the run would report nothing; measure at least one phase");
        }
        if (stackSections.isEmpty()) {
            throw new ScenarioException(
                    file,
                    0,
                    null,
                    "no [stack NAME] section: a scenario needs at least one stack"
                            + " (the first one is the baseline)");
        }
        if (preload.keys() == 0
                && phases.get(0).mix().weights().keySet().stream().noneMatch(k -> k == OpKind.INSERT)) {
            // Reads of an empty store are legal but meaningless as a first phase; say so instead of measuring misses.
            throw new ScenarioException(
                    file,
                    phases.get(0).line(),
                    null,
                    "[phase " + phases.get(0).name()
                            + "] reads an empty store: add a [preload] with keys > 0 or inserts");
        }
        List<StackSpec> stacks = new ArrayList<>();
        for (Section s : stackSections) {
            stacks.add(stack(s, common, device, deviceLines));
        }
        TenantsSpec tenants = tenantsSection == null ? null : tenants(tenantsSection, phases, stacks);
        return new Scenario(name, description, source, text, seed, preload, phases, device, stacks, tenants);
    }

    /**
     * The {@code [tenants]} section: the noisy tenant must be a partition of every stack, its phases must exist, and
     * every phase must be an open loop with async dispatch and a constant rate (each tenant's own offered load).
     */
    private TenantsSpec tenants(Section s, List<PhaseSpec> phases, List<StackSpec> stacks) {
        String noisy = s.required("noisy");
        double rcu = s.get(TENANT_RCU);
        double wcu = s.get(TENANT_WCU);
        double factor = s.get(NOISY_FACTOR);
        List<String> noisyPhases = splitList(s.str("noisy.phases", ""));
        double sloMs = s.get(TENANT_SLO_MS);
        boolean follows = s.get(QUOTA_FOLLOWS_RATE);
        s.finish("noisy, noisy.phases, " + String.join(", ", TENANTS.names()));
        for (String p : noisyPhases) {
            if (phases.stream().noneMatch(ph -> ph.name().equals(p))) {
                throw s.error(
                        "noisy.phases",
                        "names phase '" + p + "', but the phases are "
                                + phases.stream().map(PhaseSpec::name).toList());
            }
        }
        for (PhaseSpec p : phases) {
            if (p.mode() != PhaseSpec.Mode.OPEN
                    || p.dispatch() != PhaseSpec.Dispatch.ASYNC
                    || !(p.shape() instanceof LoadShape.Constant)) {
                throw new ScenarioException(
                        file,
                        p.line(),
                        null,
                        "[phase " + p.name() + "] in a scenario with [tenants] needs mode = open, dispatch = async and"
                                + " a constant rate (each tenant's own open loop)");
            }
        }
        for (StackSpec st : stacks) {
            List<String> parts = SluiceConfig.splitList(st.options().getOrDefault(SluiceConfig.PARTITIONS, "default"));
            if (!parts.contains(noisy)) {
                throw s.error(
                        "noisy",
                        "names tenant '" + noisy + "', but stack '" + st.name() + "' has partitions " + parts
                                + " (set config.partitions)");
            }
        }
        return new TenantsSpec(noisy, rcu, wcu, factor, noisyPhases, sloMs, follows);
    }

    private static String stripExtension(String n) {
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    private List<Section> split(String text) {
        List<Section> out = new ArrayList<>();
        Section cur = new Section("", null, 1);
        out.add(cur);
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String raw = lines[i];
            String line = stripComment(raw).trim();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("[")) {
                Matcher m = SECTION.matcher(line);
                if (!m.matches()) {
                    throw new ScenarioException(
                            file,
                            lineNo,
                            null,
                            "malformed section header '" + line + "' (expected [preload], [device], [phase NAME] or"
                                    + " [stack NAME])");
                }
                String kind = m.group(1);
                String name = m.group(2);
                if (!List.of("preload", "device", "phase", "stack", "tenants").contains(kind)) {
                    throw new ScenarioException(
                            file,
                            lineNo,
                            null,
                            "[" + kind + (name == null ? "" : " " + name) + "] unknown section; known: [preload],"
                                    + " [device], [phase NAME], [stack NAME], [tenants]");
                }
                boolean named = kind.equals("phase") || kind.equals("stack");
                if (named && name == null) {
                    throw new ScenarioException(
                            file, lineNo, null, "[" + kind + "] needs a name, e.g. [" + kind + " main]");
                }
                if (!named && name != null) {
                    throw new ScenarioException(file, lineNo, null, "[" + kind + "] takes no name");
                }
                if (kind.equals("stack") && !STACK_NAME.matcher(name).matches()) {
                    throw new ScenarioException(
                            file,
                            lineNo,
                            null,
                            "stack name '" + name
                                    + "' must be lower-case letters, digits and dashes (it names output files)");
                }
                cur = new Section(kind, name, lineNo);
                out.add(cur);
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ScenarioException(file, lineNo, null, "expected 'key = value', got '" + line + "'");
            }
            String key = line.substring(0, eq).trim();
            String value = line.substring(eq + 1).trim();
            if (!KEY.matcher(key).matches()) {
                throw new ScenarioException(file, lineNo, key, "malformed key (letters, digits, '.', '_', '-')");
            }
            if (cur.entries.containsKey(key)) {
                throw new ScenarioException(
                        file,
                        lineNo,
                        key,
                        cur.label() + " key given twice (first on line " + cur.entries.get(key).line + ")");
            }
            cur.entries.put(key, new Entry(value, lineNo));
        }
        return out;
    }

    private static String stripComment(String line) {
        String t = line.stripLeading();
        if (t.startsWith("#") || t.startsWith(";")) {
            return "";
        }
        int i = line.indexOf(" #");
        int j = line.indexOf("\t#");
        int cut = i < 0 ? j : (j < 0 ? i : Math.min(i, j));
        return cut < 0 ? line : line.substring(0, cut);
    }

    private PreloadSpec preload(Section s) {
        long keys = s.get(PRELOAD_KEYS);
        int keyBytes = s.get(PRELOAD_KEY_BYTES);
        int valueBytes = s.get(PRELOAD_VALUE_BYTES);
        int threads = s.get(PRELOAD_THREADS);
        boolean flush = s.get(PRELOAD_FLUSH);
        int settle = s.get(PRELOAD_SETTLE);
        long clusterKeys = s.get(PRELOAD_CLUSTER_KEYS);
        s.finish(String.join(", ", PRELOAD.names()));
        clusterKeysSeen = clusterKeys;
        return new PreloadSpec(keys, keyBytes, valueBytes, threads, flush, settle, clusterKeys);
    }

    private PhaseSpec phase(Section s, long seed) {
        int duration = s.required(DURATION_KEY, "e.g. duration = 60s");
        PhaseSpec.Mode mode =
                PhaseSpec.Mode.valueOf(s.required(MODE, "open or closed").toUpperCase(Locale.ROOT));
        OpMix mix = mix(s);
        KeyDistribution dist = distribution(s);
        int scanLength = s.get(SCAN_LENGTH);
        boolean measured = s.get(MEASURED);
        LoadShape shape = null;
        boolean poisson = false;
        PhaseSpec.Dispatch dispatch = PhaseSpec.Dispatch.SYNC;
        long maxBacklog = 0;
        long maxInflight = 0;
        int threads;
        if (mode == PhaseSpec.Mode.CLOSED) {
            threads = s.get(THREADS, 8);
            String why =
                    "in a closed-loop phase (mode = closed issues requests back to back; use mode = open for a rate)";
            s.forbid(why, "rate", "shape", "arrivals", "max.backlog", "dispatch", "max.inflight");
            for (String p : List.of("step.", "square.", "mixgraph.", "capacity.")) {
                s.forbidPrefix(p, why);
            }
        } else {
            poisson = s.get(ARRIVALS).equals("poisson");
            dispatch = PhaseSpec.Dispatch.valueOf(s.get(DISPATCH).toUpperCase(Locale.ROOT));
            if (dispatch == PhaseSpec.Dispatch.ASYNC) {
                s.forbid(
                        "with dispatch = async (every arrival goes straight to the store's async API: no worker threads"
                                + " and no client queue; bound the requests in flight with max.inflight)",
                        "threads",
                        "max.backlog");
                threads = 0;
                maxInflight = s.get(MAX_INFLIGHT);
            } else {
                s.forbid(
                        "unless dispatch = async (with dispatch = sync the client queue is bounded by max.backlog)",
                        "max.inflight");
                threads = s.get(THREADS, 16);
                maxBacklog = s.get(MAX_BACKLOG);
            }
            shape = shape(s, seed);
        }
        s.finish("duration, mode, threads, mix, distribution, zipfian.theta, hotspot.keys, hotspot.ops, scan.length,"
                + " measured"
                + (mode == PhaseSpec.Mode.OPEN
                        ? ", rate, arrivals, dispatch, max.backlog, max.inflight, shape, step.*, square.*, mixgraph.*,"
                                + " capacity.*"
                        : ""));
        return new PhaseSpec(
                s.name,
                s.line,
                duration,
                mode,
                threads,
                shape,
                poisson,
                dispatch,
                maxBacklog,
                maxInflight,
                mix,
                dist,
                scanLength,
                measured);
    }

    private OpMix mix(Section s) {
        String v = s.str("mix", null);
        if (v == null) {
            throw s.error(null, "needs key 'mix' (e.g. mix = insert:50, read:50)");
        }
        Map<OpKind, Double> w = new EnumMap<>(OpKind.class);
        for (String part : v.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int colon = p.indexOf(':');
            if (colon <= 0) {
                throw s.error("mix", "'" + p + "' should be KIND:WEIGHT, e.g. read:50");
            }
            OpKind k = OpKind.parse(p.substring(0, colon));
            if (k == null) {
                throw s.error(
                        "mix",
                        "unknown operation '" + p.substring(0, colon).trim()
                                + "' (known: insert, update, read, scan, rmw)");
            }
            if (w.containsKey(k)) {
                throw s.error("mix", "operation '" + k.id() + "' listed twice");
            }
            double weight;
            try {
                weight = Double.parseDouble(p.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw s.error(
                        "mix", "weight '" + p.substring(colon + 1).trim() + "' of " + k.id() + " is not a number");
            }
            if (!(weight >= 0) || Double.isInfinite(weight)) {
                throw s.error("mix", "weight of " + k.id() + " must be >= 0");
            }
            w.put(k, weight);
        }
        double total = w.values().stream().mapToDouble(Double::doubleValue).sum();
        if (Math.abs(total - 100) > 1e-9) {
            throw s.error(
                    "mix",
                    "'" + v + "': the weights sum to " + Option.number(total)
                            + "; they must sum to 100 (each is a percentage of the operations)");
        }
        try {
            return new OpMix(w);
        } catch (IllegalArgumentException e) {
            throw s.error("mix", e.getMessage());
        }
    }

    private KeyDistribution distribution(Section s) {
        String d = s.get(DISTRIBUTION);
        KeyDistribution.Kind kind = KeyDistribution.Kind.valueOf(d.toUpperCase(Locale.ROOT));
        if (kind != KeyDistribution.Kind.ZIPFIAN
                && kind != KeyDistribution.Kind.LATEST
                && kind != KeyDistribution.Kind.CLUSTERED) {
            s.forbid("unless distribution = zipfian, latest or clustered", "zipfian.theta");
        }
        if (kind != KeyDistribution.Kind.HOTSPOT) {
            s.forbid("unless distribution = hotspot", "hotspot.keys", "hotspot.ops");
        }
        double theta = s.get(ZIPFIAN_THETA);
        double hotKeys = s.get(HOTSPOT_KEYS);
        double hotOps = s.get(HOTSPOT_OPS);
        if (kind == KeyDistribution.Kind.CLUSTERED && clusterKeysSeen == 0) {
            throw s.error(
                    DISTRIBUTION.name(),
                    "clustered needs a [preload] section before this phase with key.cluster.keys > 0 (the key layout)");
        }
        return new KeyDistribution(kind, theta, hotKeys, hotOps, clusterKeysSeen);
    }

    private LoadShape shape(Section s, long seed) {
        String shape = s.get(SHAPE);
        for (String other : List.of("step", "square", "mixgraph", "capacity")) {
            if (!other.equals(shape)) {
                s.forbidPrefix(other + ".", "unless shape = " + other);
            }
        }
        double maxRate = MAX_RATE;
        return switch (shape) {
            case "constant" -> {
                yield new LoadShape.Constant(s.required(RATE, "requests/s, for an open-loop phase"));
            }
            case "step" -> {
                s.forbid("with shape = step (use step.rates)", "rate");
                String v = s.str("step.rates", null);
                if (v == null) {
                    throw s.error(null, "needs key 'step.rates' (e.g. step.rates = 1000, 2000, 4000)");
                }
                List<Double> rates = new ArrayList<>();
                for (String p : splitList(v)) {
                    if (p.isEmpty()) {
                        throw s.error("step.rates", "has an empty item (rates separated by single commas)");
                    }
                    try {
                        double r = Double.parseDouble(p.replace("_", ""));
                        if (!(r >= 0 && r <= maxRate)) {
                            throw s.error("step.rates", p + " is out of range [0, " + (long) maxRate + "]");
                        }
                        rates.add(r);
                    } catch (NumberFormatException e) {
                        throw s.error("step.rates", "'" + p + "' is not a number");
                    }
                }
                if (rates.stream().noneMatch(r -> r > 0)) {
                    // 'rate = 0' is refused; steps that are all 0 offered nothing as well, and ran as a stall
                    throw s.error("step.rates", "offers no load: at least one step's rate must be above 0");
                }
                int secs = s.required(STEP_SECONDS, "how long each step lasts");
                yield new LoadShape.Step(rates, secs);
            }
            case "capacity" -> {
                s.forbid(
                        "with shape = capacity (the rate is capacity.fraction x the capacity phase's throughput)",
                        "rate");
                String phase = s.required(CAPACITY_PHASE, "the earlier closed-loop phase that measures the capacity");
                yield new LoadShape.OfCapacity(phase, s.get(CAPACITY_FRACTION));
            }
            case "square" -> {
                s.forbid("with shape = square (use square.low and square.high)", "rate");
                if (!s.has("square.low") || !s.has("square.high")) {
                    throw s.error(null, "needs keys 'square.low' and 'square.high' (requests/s)");
                }
                double low = s.get(SQUARE_LOW);
                double high = s.get(SQUARE_HIGH);
                if (low == 0 && high == 0) {
                    throw s.error("square.high", "offers no load: square.low and square.high are both 0");
                }
                int period = s.get(SQUARE_PERIOD);
                double duty = s.get(SQUARE_DUTY);
                yield new LoadShape.Square(low, high, period, duty);
            }
            default -> {
                double rate = s.get(RATE, Double.NaN);
                double mean = s.get(MIXGRAPH_MEAN, rate);
                if (Double.isNaN(mean)) {
                    throw s.error(null, "needs key 'mixgraph.mean' (or 'rate') for shape = mixgraph");
                }
                double amplitude = s.get(MIXGRAPH_AMPLITUDE, 0.5 * mean);
                int period = s.get(MIXGRAPH_PERIOD);
                double phase = s.get(MIXGRAPH_PHASE);
                double noise = s.get(MIXGRAPH_NOISE);
                int interval = s.get(MIXGRAPH_INTERVAL);
                yield new LoadShape.Mixgraph(mean, amplitude, period, phase, noise, interval, seed);
            }
        };
    }

    /** The config.*, env.*, control.*.*, sysprop.* entries of a section (marked as read). */
    private Map<String, Entry> stackOptions(Section s) {
        Map<String, Entry> out = new LinkedHashMap<>();
        for (String prefix : STACK_PREFIXES) {
            for (String k : s.withPrefix(prefix)) {
                out.put(k, s.entries.get(k));
            }
        }
        return out;
    }

    private StackSpec stack(
            Section s, Map<String, Entry> common, Map<String, String> device, Map<String, Integer> deviceLines) {
        String profile = s.str("profile", "rocksdb-default");
        String controlsValue = s.str("controls", "");
        String description = s.str("description", "");
        Map<String, Entry> own = stackOptions(s);
        s.finish("profile, controls, description, config.*, env.*, control.*.*, sysprop.*");
        for (String k : List.of("config.data.dir", "config.profile", "config.controls")) {
            if (own.containsKey(k) || common.containsKey(k)) {
                int line = own.containsKey(k) ? own.get(k).line : common.get(k).line;
                throw new ScenarioException(
                        file,
                        line,
                        k,
                        "is set by the runner (data dir) or by the stack's own" + " 'profile' and 'controls' keys");
            }
        }
        List<String> controls = splitList(controlsValue);
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> sysprops = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        device.forEach((k, v) -> options.put("env.device." + k, v));
        lines.putAll(deviceLines);
        Map<String, Entry> merged = new LinkedHashMap<>(common);
        merged.putAll(own);
        for (Map.Entry<String, Entry> e : merged.entrySet()) {
            String k = e.getKey();
            if (k.startsWith("sysprop.")) {
                sysprops.put(k.substring("sysprop.".length()), e.getValue().value);
                lines.put(k, e.getValue().line); // under its written key, as a refusal of its value names it
            } else {
                String configKey = k.startsWith("config.") ? k.substring("config.".length()) : k;
                options.put(configKey, e.getValue().value);
                lines.put(configKey, e.getValue().line);
            }
        }
        if (s.has("profile")) {
            lines.put("profile", s.entries.get("profile").line);
        }
        if (s.has("controls")) {
            lines.put("controls", s.entries.get("controls").line);
        }
        StackSpec spec = new StackSpec(s.name, s.line, description, profile, controls, options, sysprops, lines);
        checkConfig(spec);
        return spec;
    }

    /** The engine's list syntax ({@link SluiceConfig#splitList}: a trailing comma is an empty item, refused). */
    static List<String> splitList(String v) {
        return SluiceConfig.splitList(v);
    }

    /** Properties for {@link SluiceConfig#fromProperties}: the stack's options plus profile, controls and data dir. */
    public static Properties toProperties(StackSpec s, Path dataDir) {
        Properties p = new Properties();
        s.options().forEach(p::setProperty);
        p.setProperty(SluiceConfig.DATA_DIR, dataDir.toString());
        p.setProperty(SluiceConfig.PROFILE, s.profile());
        p.setProperty(SluiceConfig.CONTROLS, String.join(",", s.controls()));
        return p;
    }

    /**
     * Builds the stack's SluiceConfig once at parse time so that a bad value fails now, with the line of the key at
     * fault, not minutes into a run. (Profile, controller and Env option names are checked when the node opens, and by
     * {@code Scenarios.checkNames} before a run.)
     */
    private void checkConfig(StackSpec s) {
        try {
            SluiceConfig.fromProperties(toProperties(s, Path.of("scenario-check")), Path.of("."));
        } catch (ConfigException e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            String key = null;
            int line = s.line();
            // The key named first in the message is the one at fault (an unknown-key message lists the known keys
            // after the unknown ones; a controller's options are named as "control.NAME.*").
            int best = Integer.MAX_VALUE;
            for (Map.Entry<String, Integer> kl : s.keyLines().entrySet()) {
                String k = kl.getKey();
                int at = msg.indexOf(k);
                if (at < 0 && k.startsWith("control.") && k.indexOf('.', 8) > 8) {
                    at = msg.indexOf(k.substring(0, k.indexOf('.', 8) + 1));
                }
                if (at >= 0 && at < best) {
                    best = at;
                    key = k;
                    line = kl.getValue();
                }
            }
            throw new ScenarioException(file, line, key, "[stack " + s.name() + "] " + msg);
        }
    }
}
