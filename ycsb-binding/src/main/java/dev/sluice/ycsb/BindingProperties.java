package dev.sluice.ycsb;

import dev.sluice.core.ConfigException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The binding's YCSB properties ({@code -p sluice.…=…} or in a workload file), mapped onto a {@link SluiceConfig}.
 *
 * <p>Every property under {@code sluice.} must be one of {@link #OPTIONS} or a {@code sluice.env.<key>} / {@code
 * sluice.control.<controller>.<key>} pass-through; anything else is an error, as is a bad value. Errors are {@link
 * ConfigException}s whose message starts with the property name. Properties without the {@code sluice.} prefix belong
 * to YCSB and are ignored here.
 *
 * <p>Precedence: the {@code sluice.*} properties override the file named by {@code sluice.config} (a Sluice properties
 * file, see the engine's configuration reference), which overrides the engine's defaults. Relative {@code sluice.dir}
 * resolves against the working directory.
 */
public final class BindingProperties {
    public static final String PREFIX = "sluice.";
    public static final String DIR = "sluice.dir";
    public static final String CONFIG = "sluice.config";
    public static final String PROFILE = "sluice.profile";
    public static final String CONTROLS = "sluice.controls";
    public static final String PARTITIONS = "sluice.partitions";
    public static final String SYNC = "sluice.sync";
    public static final String ENV = "sluice.env";
    public static final String ENV_PREFIX = "sluice.env.";
    public static final String CONTROL_PREFIX = "sluice.control.";

    /** Default data directory, relative to the working directory: kept between {@code load} and {@code run}. */
    public static final String DEFAULT_DIR = "ycsb-data";

    public static final int MAX_PARTITIONS = 1024;

    /** One documented property. */
    public record Option(String key, String defaultValue, String doc) {}

    /** The binding's properties, in README order. */
    public static final List<Option> OPTIONS = List.of(
            new Option(
                    DIR,
                    DEFAULT_DIR,
                    "Data directory of the store (relative to the working directory). Kept between load and run."),
            new Option(
                    CONFIG,
                    "(none)",
                    "A Sluice engine properties file used as the base configuration; the sluice.* properties override"
                            + " it. Its data.dir is replaced by sluice.dir (or the default)."),
            new Option(PROFILE, "rocksdb-default", "Engine profile (named RocksDB option set)."),
            new Option(CONTROLS, "(none)", "Comma-separated control loops to run, in order (e.g. admission,adoc)."),
            new Option(
                    PARTITIONS,
                    "1",
                    "Number of partitions p0..pN-1 (1 to " + MAX_PARTITIONS
                            + "); each record goes to one by a stable hash of its key. Must not change between load"
                            + " and run."),
            new Option(SYNC, "false", "true: fsync the WAL before acknowledging each write."),
            new Option(ENV, "auto", "I/O layer: auto, priority (native priority Env) or default (RocksDB's)."),
            new Option(
                    ENV_PREFIX + "<key>",
                    "(Env default)",
                    "Passed to the Env as env.<key>, e.g. sluice.env.device.iops=3000 for the emulated device."),
            new Option(
                    CONTROL_PREFIX + "<controller>.<key>",
                    "(controller default)",
                    "Passed to a controller as control.<controller>.<key>; the controller must be in sluice.controls."));

    private BindingProperties() {}

    /** Partition names for a count: p0..p(n-1). */
    public static List<String> partitionNames(int count) {
        List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            names.add("p" + i);
        }
        return names;
    }

    /**
     * Builds the engine configuration from YCSB properties. Relative paths resolve against {@code workingDir}.
     *
     * @throws ConfigException naming the offending property
     */
    public static SluiceConfig toSluiceConfig(Properties props, Path workingDir) {
        List<String> unknown = new ArrayList<>();
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            if (key.startsWith(PREFIX)
                    && !List.of(DIR, CONFIG, PROFILE, CONTROLS, PARTITIONS, SYNC, ENV)
                            .contains(key)
                    && !key.startsWith(ENV_PREFIX)
                    && !key.startsWith(CONTROL_PREFIX)) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown Sluice binding propert" + (unknown.size() == 1 ? "y " : "ies ")
                    + unknown + "; known: "
                    + OPTIONS.stream().map(Option::key).toList());
        }

        Path dir = workingDir
                .resolve(value(props, DIR).orElse(DEFAULT_DIR))
                .toAbsolutePath()
                .normalize();
        SluiceConfig.Builder b = value(props, CONFIG)
                .map(file -> baseFromFile(workingDir.resolve(file).toAbsolutePath(), dir))
                .orElseGet(() -> SluiceConfig.builder(dir).partitions(partitionNames(1)));

        value(props, PARTITIONS)
                .ifPresent(v -> set(PARTITIONS, v, x -> {
                    int n = parseInt(x);
                    if (n < 1 || n > MAX_PARTITIONS) {
                        throw new ConfigException("must be between 1 and " + MAX_PARTITIONS);
                    }
                    b.partitions(partitionNames(n));
                }));
        value(props, PROFILE).ifPresent(v -> set(PROFILE, v, b::profile));
        String controls = props.getProperty(CONTROLS);
        if (controls != null) { // empty or "none" means no controllers
            String v = controls.trim();
            set(CONTROLS, v, x -> b.controls(x.equalsIgnoreCase("none") ? List.of() : SluiceConfig.splitList(x)));
        }
        value(props, SYNC).ifPresent(v -> set(SYNC, v, x -> b.syncWrites(parseBoolean(x))));
        value(props, ENV).ifPresent(v -> set(ENV, v, b::env));
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            String v = props.getProperty(key).trim();
            if (key.startsWith(ENV_PREFIX)) {
                String envKey = key.substring(ENV_PREFIX.length());
                set(key, v, x -> b.envOption(requireNonEmpty(envKey, "an Env option name after 'sluice.env.'"), x));
            } else if (key.startsWith(CONTROL_PREFIX)) {
                String rest = key.substring(CONTROL_PREFIX.length());
                int dot = rest.indexOf('.');
                if (dot <= 0 || dot == rest.length() - 1) {
                    throw new ConfigException(
                            key + ": expected sluice.control.<controller>.<key>, e.g. sluice.control.admission.k1");
                }
                set(key, v, x -> b.controlOption(rest.substring(0, dot), rest.substring(dot + 1), x));
            }
        }
        try {
            return b.build();
        } catch (ConfigException e) {
            // Cross-field checks (e.g. options for a controller missing from the list) speak engine keys; translate.
            throw new ConfigException("invalid Sluice binding properties: " + e.getMessage()
                    + " (engine key X is set with the binding property sluice.X)");
        }
    }

    /**
     * {@link #toSluiceConfig}, then everything the engine would refuse when it opens — the profile, the controllers
     * and every {@code env.*} / {@code control.*} value ({@link Sluice#validate}: no disk, no native code) — so a bad
     * value fails before any store directory exists.
     *
     * @throws ConfigException whose message starts with the offending property and its value
     */
    public static SluiceConfig toValidatedConfig(Properties props, Path workingDir) {
        SluiceConfig config = toSluiceConfig(props, workingDir);
        try {
            Sluice.validate(config);
        } catch (ConfigException e) {
            String property = faultProperty(e.getMessage(), props);
            throw new ConfigException(
                    property != null
                            ? property + " = '" + props.getProperty(property).trim() + "': " + e.getMessage()
                            : "invalid Sluice configuration"
                                    + value(props, CONFIG)
                                            .map(f -> " (" + CONFIG + " = " + f + ")")
                                            .orElse("")
                                    + ": " + e.getMessage());
        }
        return config;
    }

    /**
     * The binding property an engine validation message is about: the {@code sluice.*} property whose engine key
     * ({@code env.device.iops} for {@code sluice.env.device.iops}) the message names first; a controller's option may
     * be named as {@code control.NAME: option 'KEY' ...}. Null when the value came from elsewhere (e.g. {@code
     * sluice.config}).
     */
    static String faultProperty(String msg, Properties props) {
        if (msg == null) {
            return null;
        }
        String best = null;
        int bestAt = Integer.MAX_VALUE;
        for (String p : new TreeSet<>(props.stringPropertyNames())) {
            if (!p.startsWith(PREFIX) || p.equals(DIR) || p.equals(CONFIG) || p.equals(PARTITIONS)) {
                continue;
            }
            String engineKey = p.substring(PREFIX.length());
            int at = indexOfKey(msg, engineKey);
            if (at < 0 && p.startsWith(ENV_PREFIX)) {
                at = indexOfKey(msg, engineKey.substring("env.".length()));
            }
            if (at < 0 && p.startsWith(CONTROL_PREFIX)) {
                int dot = engineKey.indexOf('.', "control.".length());
                if (dot > 0 && msg.startsWith(engineKey.substring(0, dot) + ":")) {
                    at = indexOfKey(msg, engineKey.substring(dot + 1));
                }
            }
            if (at >= 0 && (at < bestAt || (at == bestAt && p.length() > best.length()))) {
                best = p;
                bestAt = at;
            }
        }
        return best;
    }

    /** Where {@code key} occurs in {@code s} as a whole key (not inside a longer dotted name), or -1. */
    private static int indexOfKey(String s, String key) {
        for (int at = s.indexOf(key); at >= 0; at = s.indexOf(key, at + 1)) {
            int end = at + key.length();
            boolean startOk = at == 0 || !isKeyChar(s.charAt(at - 1));
            boolean endOk = end == s.length() || !isKeyChar(s.charAt(end));
            if (startOk && endOk) {
                return at;
            }
        }
        return -1;
    }

    private static boolean isKeyChar(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-';
    }

    private static SluiceConfig.Builder baseFromFile(Path file, Path dir) {
        Properties p;
        try { // the engine's reader: names a missing file, a file that is not UTF-8 and a key given twice
            p = SluiceConfig.readPropertiesFile(file);
        } catch (ConfigException e) {
            throw new ConfigException(CONFIG + " = " + file + ": " + e.getMessage());
        }
        p.setProperty(SluiceConfig.DATA_DIR, dir.toString());
        if (!p.containsKey(SluiceConfig.PARTITIONS)) {
            p.setProperty(SluiceConfig.PARTITIONS, String.join(",", partitionNames(1)));
        }
        try {
            return SluiceConfig.fromProperties(p, file.getParent()).toBuilder();
        } catch (ConfigException e) {
            throw new ConfigException(CONFIG + " = " + file + ": " + e.getMessage());
        }
    }

    private static java.util.Optional<String> value(Properties props, String key) {
        String v = props.getProperty(key);
        if (v == null) {
            return java.util.Optional.empty();
        }
        v = v.trim();
        if (v.isEmpty()) {
            throw new ConfigException(key + " is empty; remove it to use the default");
        }
        return java.util.Optional.of(v);
    }

    /** Applies one property, prefixing any validation error with the property name and value. */
    private static void set(String key, String value, Consumer<String> setter) {
        try {
            setter.accept(value);
        } catch (ConfigException e) {
            throw new ConfigException(key + " = '" + value + "': " + e.getMessage());
        }
    }

    private static String requireNonEmpty(String s, String what) {
        if (s.isBlank()) {
            throw new ConfigException("expected " + what);
        }
        return s;
    }

    private static int parseInt(String v) {
        try {
            return Integer.parseInt(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException("not a whole number");
        }
    }

    private static boolean parseBoolean(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException("must be true or false");
        };
    }
}
