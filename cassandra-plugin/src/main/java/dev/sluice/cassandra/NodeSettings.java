package dev.sluice.cassandra;

import dev.sluice.core.ConfigException;
import dev.sluice.core.config.ListSyntax;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.config.OptionValues;
import dev.sluice.core.control.ControlLoopProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The node-wide settings of the plugin: one control plane serves every table that uses {@link
 * SluiceCompactionStrategy}, so its settings are the Cassandra JVM's system properties ({@code -Dsluice.controls=...}
 * in {@code jvm-server.options} or {@code JVM_EXTRA_OPTS}), not table options. Controller options are {@code
 * -Dsluice.control.<name>.<key>=<value>}, checked against the controller's own descriptors, exactly as on the RocksDB
 * engine's {@code control.<name>.<key>}.
 *
 * @param controls controller names in priority order (the first to set a knob in a tick wins)
 * @param controlOptions per controller, its options parsed over the defaults (as text)
 */
record NodeSettings(
        List<String> controls,
        Map<String, Map<String, String>> controlOptions,
        Duration tick,
        int eventCapacity,
        Path eventsFile,
        Map<String, ControlLoopProvider> providers) {

    static final String PREFIX = "sluice.";

    static final Option<String> CONTROLS = Option.of(
            "controls",
            "list",
            "admission",
            "(none)",
            true,
            String::trim,
            v -> null,
            v -> v,
            "controller names, comma-separated",
            "",
            "controllers in priority order (admission, static-admission, cruise-compaction-priority, adoc); empty ="
                    + " none");
    static final Option<Long> TICK_MS =
            Option.longOption("tick.ms", 1000, 10, 60_000, "ms", "control period (one snapshot and decision per tick)");
    static final Option<Long> EVENTS_CAPACITY = Option.longOption(
            "events.capacity", 1000, 1, 1_000_000, "events", "control events kept in memory (JMX view)");
    static final Option<String> EVENTS_FILE = Option.of(
            "events.file",
            "path",
            "",
            "(none)",
            true,
            String::trim,
            v -> null,
            v -> v,
            "a file path",
            "",
            "also append each control event to this JSON-lines file");

    static final OptionSet OPTIONS = OptionSet.of(CONTROLS, TICK_MS, EVENTS_CAPACITY, EVENTS_FILE);

    /**
     * Reads and checks the {@code sluice.*} system properties.
     *
     * @throws ConfigException naming the property and what is allowed
     */
    static NodeSettings from(Properties props) {
        Map<String, String> own = new TreeMap<>();
        Map<String, Map<String, String>> perControl = new TreeMap<>();
        for (String key : props.stringPropertyNames()) {
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            String k = key.substring(PREFIX.length());
            if (k.startsWith("control.")) {
                String rest = k.substring("control.".length());
                int dot = rest.indexOf('.');
                if (dot <= 0 || dot == rest.length() - 1) {
                    throw new ConfigException(
                            "system property " + key + ": expected sluice.control.<controller>.<option>");
                }
                perControl
                        .computeIfAbsent(rest.substring(0, dot), n -> new TreeMap<>())
                        .put(rest.substring(dot + 1), props.getProperty(key));
            } else {
                own.put(k, props.getProperty(key));
            }
        }
        OptionValues values = OPTIONS.parse(PREFIX, own);
        Map<String, ControlLoopProvider> known = knownControllers();
        List<String> controls = new ArrayList<>();
        List<String> onCassandra =
                known.keySet().stream().filter(k -> !ROCKSDB_ONLY.contains(k)).toList();
        for (String n : ListSyntax.split(values.get(CONTROLS))) {
            if (n.isEmpty()) {
                // 'admission,,adoc' or a trailing comma: a name left out by mistake, refused as the engine's
                // controls option and the bench's scenario files refuse it
                throw new ConfigException("system property sluice.controls = '" + values.get(CONTROLS)
                        + "' has an empty item; list controller names separated by single commas");
            }
            if (ROCKSDB_ONLY.contains(n)) {
                throw new ConfigException("system property sluice.controls: '" + n + "' runs on RocksDB only (on"
                        + " Cassandra: " + onCassandra + ")");
            }
            if (!known.containsKey(n)) {
                throw new ConfigException("system property sluice.controls: '" + n
                        + "' is not a known controller; known: " + onCassandra);
            }
            if (controls.contains(n)) {
                throw new ConfigException("system property sluice.controls names '" + n + "' twice");
            }
            controls.add(n);
        }
        Map<String, Map<String, String>> parsed = new LinkedHashMap<>();
        for (String n : perControl.keySet()) {
            if (!controls.contains(n)) {
                throw new ConfigException("system properties sluice.control." + n + ".* are set, but '" + n
                        + "' is not in sluice.controls = " + controls);
            }
        }
        for (String n : controls) {
            ControlLoopProvider p = known.get(n);
            parsed.put(
                    n,
                    p.optionSet()
                            .parse(PREFIX + "control." + n + ".", perControl.getOrDefault(n, Map.of()))
                            .asStrings());
        }
        String file = values.get(EVENTS_FILE);
        return new NodeSettings(
                List.copyOf(controls),
                parsed,
                Duration.ofMillis(values.get(TICK_MS)),
                (int) (long) values.get(EVENTS_CAPACITY),
                file.isBlank() ? null : Path.of(file),
                known);
    }

    /**
     * Controllers the shaded jar carries (they are engine-neutral code) that are not made for a Cassandra node: {@code
     * vlsm-l0} picks L0 files and the L1 files they overlap, but a user-defined compaction here takes the named sstables
     * only, so each of its actions rewrote one sstable to itself (Cassandra probe, 2026-11-28); {@code deferral} is
     * FlexEngine's multi-tenant deferral, measured on RocksDB partitions only. Refused by name instead of run.
     */
    static final java.util.Set<String> ROCKSDB_ONLY =
            java.util.Set.of("vlsm-l0", "deferral", "calcspar-cache", "flex-partition");

    /**
     * Controllers on the plugin's classpath by name (the shaded jar brings the engine-neutral ones: admission, cruise,
     * adoc, vlsm, ...). A provider listed in a merged services file whose classes the jar leaves out on purpose (a
     * RocksDB-only controller such as {@code flex-partition}, which drives the priority Env) is skipped, not fatal.
     */
    static Map<String, ControlLoopProvider> knownControllers() {
        Map<String, ControlLoopProvider> m = new TreeMap<>();
        Iterator<ControlLoopProvider> it = ServiceLoader.load(
                        ControlLoopProvider.class, NodeSettings.class.getClassLoader())
                .iterator();
        for (int skipped = 0; skipped < 1000; ) { // bounded: recovery after an error is best effort (ServiceLoader)
            ControlLoopProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (ServiceConfigurationError e) {
                skipped++;
                continue; // not shipped in the plugin jar: that controller is simply not available on Cassandra
            }
            m.putIfAbsent(p.name(), p);
        }
        return m;
    }
}
