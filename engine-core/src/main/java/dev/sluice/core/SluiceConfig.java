package dev.sluice.core;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A node's configuration: immutable, validated when built. Every key is listed in {@link #OPTIONS} with its default,
 * range and documentation; the README's configuration reference is checked against that list by a test.
 *
 * <p>Build it with {@link #builder(Path)} or load a properties file with {@link #fromProperties(Path)}. A bad value
 * throws {@link ConfigException} naming the key, the value and the allowed range; an unknown key is an error, not
 * ignored. Controller options go under {@code control.<controller>.<key>}, Env options under {@code env.<key>}; those are
 * validated against what the controller or Env declares when the node opens.
 */
public record SluiceConfig(
        Path dataDir,
        List<String> partitions,
        String profile,
        List<String> controls,
        Duration tickPeriod,
        long blockCacheBytes,
        long writeBufferManagerBytes,
        String env,
        Map<String, String> envOptions,
        Map<String, Map<String, String>> controlOptions,
        int maxKeyBytes,
        int maxValueBytes,
        boolean syncWrites,
        int asyncThreads,
        int asyncQueueCapacity,
        int controlEventsCapacity,
        Optional<Path> controlEventsFile) {

    /** Documentation of one configuration key. */
    public record Option(String key, String defaultValue, String allowed, String doc) {}

    private static final Pattern PARTITION_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern CONTROL_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final long KIB = 1024, MIB = KIB * KIB, GIB = MIB * KIB;

    public static final String DATA_DIR = "data.dir";
    public static final String PARTITIONS = "partitions";
    public static final String PROFILE = "profile";
    public static final String CONTROLS = "controls";
    public static final String TICK_PERIOD_MS = "tick.period.ms";
    public static final String BLOCK_CACHE_BYTES = "block.cache.bytes";
    public static final String WRITE_BUFFER_MANAGER_BYTES = "write.buffer.manager.bytes";
    public static final String ENV = "env";
    public static final String MAX_KEY_BYTES = "limits.max.key.bytes";
    public static final String MAX_VALUE_BYTES = "limits.max.value.bytes";
    public static final String SYNC_WRITES = "writes.sync";
    public static final String ASYNC_THREADS = "async.threads";
    public static final String ASYNC_QUEUE_CAPACITY = "async.queue.capacity";
    public static final String EVENTS_CAPACITY = "control.events.capacity";
    public static final String EVENTS_FILE = "control.events.file";

    /** Every top-level key, in reference order. */
    public static final List<Option> OPTIONS = List.of(
            new Option(
                    DATA_DIR,
                    "(required)",
                    "a directory path",
                    "Where the node keeps its partitions (one RocksDB directory each) and the SLUICE marker file."),
            new Option(
                    PARTITIONS,
                    "default",
                    "comma-separated names of [A-Za-z0-9_-]{1,64}, unique",
                    "Partitions (tenants) of the node, each its own RocksDB instance with its own WAL."),
            new Option(
                    PROFILE,
                    "rocksdb-default",
                    "a registered profile name",
                    "Named RocksDB option set applied to every partition (see Profiles)."),
            new Option(
                    CONTROLS,
                    "(none)",
                    "comma-separated registered controller names, each at most once",
                    "Control loops to run, in this order; earlier ones win when two set the same knob in a tick."),
            new Option(TICK_PERIOD_MS, "1000", "10 to 60000", "Control-plane tick period in milliseconds."),
            new Option(
                    BLOCK_CACHE_BYTES,
                    "67108864",
                    "0 to 1099511627776",
                    "Size of the LRU block cache shared by all partitions (0 disables block caching)."),
            new Option(
                    WRITE_BUFFER_MANAGER_BYTES,
                    "0",
                    "0 to 1099511627776",
                    "Memtable memory shared by all partitions through one WriteBufferManager; 0 = each partition on its own."),
            new Option(
                    ENV,
                    "auto",
                    "auto, priority, default",
                    "I/O layer: priority = Sluice's native priority Env (error if it cannot load); default = RocksDB's"
                            + " Env; auto = priority when available, else default with one log line."),
            new Option(MAX_KEY_BYTES, "8192", "1 to 1048576", "Largest key accepted."),
            new Option(MAX_VALUE_BYTES, "16777216", "0 to 268435456", "Largest value accepted."),
            new Option(
                    SYNC_WRITES,
                    "false",
                    "true, false",
                    "Durability of writes with WriteMode.DEFAULT: true fsyncs the WAL before acknowledging."),
            new Option(ASYNC_THREADS, "4", "1 to 256", "Threads that run async requests once admitted."),
            new Option(
                    ASYNC_QUEUE_CAPACITY,
                    "10000",
                    "1 to 1000000",
                    "Admitted async requests that may wait for a thread; past it they fail with OverloadedException."),
            new Option(EVENTS_CAPACITY, "1024", "16 to 1000000", "Control events kept in memory (ring buffer)."),
            new Option(
                    EVENTS_FILE,
                    "(none)",
                    "a file path",
                    "If set, every control event is appended to this file as one JSON line."));

    /**
     * Validates every field (so a config built with the canonical constructor is checked like one from the builder)
     * and makes defensive copies.
     */
    public SluiceConfig {
        if (dataDir == null) {
            throw new ConfigException(DATA_DIR + " must be set");
        }
        checkPartitions(partitions);
        if (profile == null || profile.isBlank()) {
            throw new ConfigException(PROFILE + " must not be empty");
        }
        checkControls(controls);
        if (tickPeriod == null) {
            throw new ConfigException(TICK_PERIOD_MS + " must not be null");
        }
        checkRange(TICK_PERIOD_MS, tickPeriod.toMillis(), 10, 60_000);
        checkRange(BLOCK_CACHE_BYTES, blockCacheBytes, 0, 1024 * GIB);
        checkRange(WRITE_BUFFER_MANAGER_BYTES, writeBufferManagerBytes, 0, 1024 * GIB);
        checkEnv(env);
        checkRange(MAX_KEY_BYTES, maxKeyBytes, 1, 1 << 20);
        checkRange(MAX_VALUE_BYTES, maxValueBytes, 0, 256 * MIB);
        checkRange(ASYNC_THREADS, asyncThreads, 1, 256);
        checkRange(ASYNC_QUEUE_CAPACITY, asyncQueueCapacity, 1, 1_000_000);
        checkRange(EVENTS_CAPACITY, controlEventsCapacity, 16, 1_000_000);
        if (envOptions == null || controlOptions == null || controlEventsFile == null) {
            throw new ConfigException("envOptions, controlOptions and controlEventsFile must not be null");
        }
        for (String c : controlOptions.keySet()) {
            if (!controls.contains(c)) {
                throw new ConfigException("options given for controller '" + c + "' (control." + c
                        + ".*), but it is not in " + CONTROLS + " " + controls);
            }
        }
        partitions = List.copyOf(partitions);
        controls = List.copyOf(controls);
        envOptions = Collections.unmodifiableMap(new TreeMap<>(envOptions));
        Map<String, Map<String, String>> co = new TreeMap<>();
        controlOptions.forEach((k, v) -> co.put(k, Collections.unmodifiableMap(new TreeMap<>(v))));
        controlOptions = Collections.unmodifiableMap(co);
    }

    public static Builder builder(Path dataDir) {
        return new Builder().dataDir(dataDir);
    }

    /** Defaults for a store in {@code dataDir}. */
    public static SluiceConfig defaults(Path dataDir) {
        return builder(dataDir).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.dataDir = dataDir;
        b.partitions = new ArrayList<>(partitions);
        b.profile = profile;
        b.controls = new ArrayList<>(controls);
        b.tickPeriod = tickPeriod;
        b.blockCacheBytes = blockCacheBytes;
        b.writeBufferManagerBytes = writeBufferManagerBytes;
        b.env = env;
        b.envOptions = new LinkedHashMap<>(envOptions);
        controlOptions.forEach((k, v) -> b.controlOptions.put(k, new LinkedHashMap<>(v)));
        b.maxKeyBytes = maxKeyBytes;
        b.maxValueBytes = maxValueBytes;
        b.syncWrites = syncWrites;
        b.asyncThreads = asyncThreads;
        b.asyncQueueCapacity = asyncQueueCapacity;
        b.controlEventsCapacity = controlEventsCapacity;
        b.controlEventsFile = controlEventsFile.orElse(null);
        return b;
    }

    /** Options of one controller as the user gave them (defaults are merged in by the node). */
    public Map<String, String> controlOptions(String controller) {
        return controlOptions.getOrDefault(controller, Map.of());
    }

    /**
     * Loads a properties file. Relative {@code data.dir} and {@code control.events.file} resolve against the file's
     * directory. Unknown keys, bad values and a missing {@code data.dir} throw {@link ConfigException} naming the file
     * and key.
     */
    public static SluiceConfig fromProperties(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        Path base = file.toAbsolutePath().getParent();
        try {
            return fromProperties(p, base);
        } catch (ConfigException e) {
            throw new ConfigException(file + ": " + e.getMessage());
        }
    }

    /** Builds from key/value pairs; relative paths resolve against {@code baseDir}. */
    public static SluiceConfig fromProperties(Properties p, Path baseDir) {
        Builder b = new Builder();
        List<String> unknown = new ArrayList<>();
        for (String key : new TreeMap<>(toMap(p)).keySet()) {
            String v = p.getProperty(key).trim();
            switch (key) {
                case DATA_DIR -> b.dataDir(baseDir.resolve(v));
                case PARTITIONS -> b.partitions(splitList(v));
                case PROFILE -> b.profile(v);
                case CONTROLS -> b.controls(splitList(v));
                case TICK_PERIOD_MS -> b.tickPeriod(Duration.ofMillis(parseLong(key, v)));
                case BLOCK_CACHE_BYTES -> b.blockCacheBytes(parseLong(key, v));
                case WRITE_BUFFER_MANAGER_BYTES -> b.writeBufferManagerBytes(parseLong(key, v));
                case ENV -> b.env(v);
                case MAX_KEY_BYTES -> b.maxKeyBytes(parseInt(key, v));
                case MAX_VALUE_BYTES -> b.maxValueBytes(parseInt(key, v));
                case SYNC_WRITES -> b.syncWrites(parseBoolean(key, v));
                case ASYNC_THREADS -> b.asyncThreads(parseInt(key, v));
                case ASYNC_QUEUE_CAPACITY -> b.asyncQueueCapacity(parseInt(key, v));
                case EVENTS_CAPACITY -> b.controlEventsCapacity(parseInt(key, v));
                case EVENTS_FILE -> b.controlEventsFile(v.isEmpty() ? null : baseDir.resolve(v));
                default -> {
                    if (key.startsWith("env.") && key.length() > 4) {
                        b.envOption(key.substring(4), v);
                    } else if (key.startsWith("control.") && key.indexOf('.', 8) > 8) {
                        int dot = key.indexOf('.', 8);
                        b.controlOption(key.substring(8, dot), key.substring(dot + 1), v);
                    } else {
                        unknown.add(key);
                    }
                }
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown configuration key(s) " + unknown + "; known keys: "
                    + OPTIONS.stream().map(Option::key).toList() + ", env.<key>, control.<controller>.<key>");
        }
        return b.build();
    }

    private static Map<String, String> toMap(Properties p) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : p.stringPropertyNames()) {
            m.put(k, p.getProperty(k));
        }
        return m;
    }

    /**
     * Parses a list value as the properties format writes it: comma-separated, optionally in brackets ({@code a, b} or
     * {@code [a, b]}); blank means empty. Shared by every Sluice properties reader.
     */
    public static List<String> splitList(String v) {
        String s = v.trim();
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        if (s.isBlank()) {
            return List.of();
        }
        return Arrays.stream(s.split(",")).map(String::trim).toList();
    }

    private static long parseLong(String key, String v) {
        try {
            return Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " = '" + v + "' is not a whole number");
        }
    }

    private static int parseInt(String key, String v) {
        long l = parseLong(key, v);
        if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
            throw new ConfigException(key + " = " + v + " is out of range for an int");
        }
        return (int) l;
    }

    private static boolean parseBoolean(String key, String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException(key + " = '" + v + "' must be true or false");
        };
    }

    private static void checkPartitions(List<String> names) {
        if (names == null || names.isEmpty()) {
            throw new ConfigException(PARTITIONS + " must name at least one partition");
        }
        LinkedHashSet<String> seen = new LinkedHashSet<>();
        for (String n : names) {
            if (n == null || !PARTITION_NAME.matcher(n).matches()) {
                throw new ConfigException(
                        PARTITIONS + ": '" + n + "' is not a valid partition name ([A-Za-z0-9_-]{1,64})");
            }
            if (!seen.add(n)) {
                throw new ConfigException(PARTITIONS + ": '" + n + "' is listed twice");
            }
        }
    }

    private static void checkControls(List<String> names) {
        if (names == null) {
            throw new ConfigException(CONTROLS + " must not be null");
        }
        LinkedHashSet<String> seen = new LinkedHashSet<>();
        for (String n : names) {
            if (n == null || !CONTROL_NAME.matcher(n).matches()) {
                throw new ConfigException(CONTROLS + ": '" + n + "' is not a valid controller name");
            }
            if (!seen.add(n)) {
                throw new ConfigException(CONTROLS + ": '" + n + "' is listed twice");
            }
        }
    }

    private static void checkEnv(String v) {
        if (!List.of("auto", "priority", "default").contains(v)) {
            throw new ConfigException(ENV + " = '" + v + "' must be one of auto, priority, default");
        }
    }

    private static void checkRange(String key, long v, long min, long max) {
        if (v < min || v > max) {
            throw new ConfigException(key + " = " + v + " is out of range [" + min + ", " + max + "]");
        }
    }

    /** Mutable builder; each setter validates its value at once and {@link #build()} checks the whole. */
    public static final class Builder {
        private Path dataDir;
        private List<String> partitions = new ArrayList<>(List.of("default"));
        private String profile = "rocksdb-default";
        private List<String> controls = new ArrayList<>();
        private Duration tickPeriod = Duration.ofSeconds(1);
        private long blockCacheBytes = 64 * MIB;
        private long writeBufferManagerBytes = 0;
        private String env = "auto";
        private Map<String, String> envOptions = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> controlOptions = new LinkedHashMap<>();
        private int maxKeyBytes = 8192;
        private int maxValueBytes = 16 * (int) MIB;
        private boolean syncWrites = false;
        private int asyncThreads = 4;
        private int asyncQueueCapacity = 10_000;
        private int controlEventsCapacity = 1024;
        private Path controlEventsFile;

        private Builder() {}

        public Builder dataDir(Path dir) {
            if (dir == null) {
                throw new ConfigException(DATA_DIR + " must be set");
            }
            this.dataDir = dir;
            return this;
        }

        public Builder partitions(List<String> names) {
            checkPartitions(names);
            this.partitions = new ArrayList<>(names);
            return this;
        }

        public Builder partitions(String... names) {
            return partitions(Arrays.asList(names));
        }

        public Builder profile(String name) {
            if (name == null || name.isBlank()) {
                throw new ConfigException(PROFILE + " must not be empty");
            }
            this.profile = name.trim();
            return this;
        }

        public Builder controls(List<String> names) {
            checkControls(names);
            this.controls = new ArrayList<>(names);
            return this;
        }

        public Builder controls(String... names) {
            return controls(Arrays.asList(names));
        }

        /** No controllers and none of their options: the same node with its control loops switched off. */
        public Builder withoutControls() {
            this.controls = new ArrayList<>();
            this.controlOptions.clear();
            return this;
        }

        public Builder tickPeriod(Duration d) {
            if (d == null) {
                throw new ConfigException(TICK_PERIOD_MS + " must not be null");
            }
            checkRange(TICK_PERIOD_MS, d.toMillis(), 10, 60_000);
            this.tickPeriod = d;
            return this;
        }

        public Builder blockCacheBytes(long v) {
            checkRange(BLOCK_CACHE_BYTES, v, 0, 1024 * GIB);
            this.blockCacheBytes = v;
            return this;
        }

        public Builder writeBufferManagerBytes(long v) {
            checkRange(WRITE_BUFFER_MANAGER_BYTES, v, 0, 1024 * GIB);
            this.writeBufferManagerBytes = v;
            return this;
        }

        public Builder env(String v) {
            checkEnv(v);
            this.env = v;
            return this;
        }

        /** An option of the Env, e.g. {@code envOption("device.iops", "3000")}. */
        public Builder envOption(String key, String value) {
            if (key == null || key.isBlank() || value == null) {
                throw new ConfigException("env option key and value must not be empty");
            }
            envOptions.put(key, value);
            return this;
        }

        /** An option of a controller, e.g. {@code controlOption("admission", "k1", "0.5")}. */
        public Builder controlOption(String controller, String key, String value) {
            if (controller == null || !CONTROL_NAME.matcher(controller).matches()) {
                throw new ConfigException("control option: '" + controller + "' is not a valid controller name");
            }
            if (key == null || key.isBlank() || value == null) {
                throw new ConfigException("control." + controller + ": option key and value must not be empty");
            }
            controlOptions
                    .computeIfAbsent(controller, k -> new LinkedHashMap<>())
                    .put(key, value);
            return this;
        }

        public Builder maxKeyBytes(int v) {
            checkRange(MAX_KEY_BYTES, v, 1, 1 << 20);
            this.maxKeyBytes = v;
            return this;
        }

        public Builder maxValueBytes(int v) {
            checkRange(MAX_VALUE_BYTES, v, 0, 256 * MIB);
            this.maxValueBytes = v;
            return this;
        }

        public Builder syncWrites(boolean v) {
            this.syncWrites = v;
            return this;
        }

        public Builder asyncThreads(int v) {
            checkRange(ASYNC_THREADS, v, 1, 256);
            this.asyncThreads = v;
            return this;
        }

        public Builder asyncQueueCapacity(int v) {
            checkRange(ASYNC_QUEUE_CAPACITY, v, 1, 1_000_000);
            this.asyncQueueCapacity = v;
            return this;
        }

        public Builder controlEventsCapacity(int v) {
            checkRange(EVENTS_CAPACITY, v, 16, 1_000_000);
            this.controlEventsCapacity = v;
            return this;
        }

        public Builder controlEventsFile(Path file) {
            this.controlEventsFile = file;
            return this;
        }

        public SluiceConfig build() {
            return new SluiceConfig(
                    dataDir,
                    partitions,
                    profile,
                    controls,
                    tickPeriod,
                    blockCacheBytes,
                    writeBufferManagerBytes,
                    env,
                    envOptions,
                    controlOptions,
                    maxKeyBytes,
                    maxValueBytes,
                    syncWrites,
                    asyncThreads,
                    asyncQueueCapacity,
                    controlEventsCapacity,
                    Optional.ofNullable(controlEventsFile));
        }
    }
}
