package dev.sluice.core.config;

import dev.sluice.core.ConfigException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The options of one component (the node, a controller, the Env, a section of a scenario file), in declaration order.
 * {@link #parse} turns the user's text values into typed {@link OptionValues}: missing keys take their defaults, an
 * unknown key is refused naming the allowed ones, a bad value is refused naming the key, the value and what is allowed.
 * Immutable.
 */
public final class OptionSet {
    private final Map<String, Option<?>> options;

    private OptionSet(Map<String, Option<?>> options) {
        this.options = Collections.unmodifiableMap(options);
    }

    public static OptionSet of(Option<?>... options) {
        return of(List.of(options));
    }

    /** @throws IllegalArgumentException when two options have the same name */
    public static OptionSet of(Collection<? extends Option<?>> options) {
        Map<String, Option<?>> m = new LinkedHashMap<>();
        for (Option<?> o : options) {
            if (m.putIfAbsent(o.name(), o) != null) {
                throw new IllegalArgumentException("option '" + o.name() + "' is declared twice");
            }
        }
        return new OptionSet(m);
    }

    /** These options followed by {@code more}. */
    public OptionSet with(Option<?>... more) {
        List<Option<?>> all = new ArrayList<>(options.values());
        all.addAll(List.of(more));
        return of(all);
    }

    /** The options in declaration order. */
    public List<Option<?>> options() {
        return List.copyOf(options.values());
    }

    /** The option names, sorted. */
    public List<String> names() {
        return List.copyOf(new TreeSet<>(options.keySet()));
    }

    public boolean contains(String name) {
        return options.containsKey(name);
    }

    public Optional<Option<?>> get(String name) {
        return Optional.ofNullable(options.get(name));
    }

    public boolean isEmpty() {
        return options.isEmpty();
    }

    /** The keys of {@code given} that are not options here, sorted (empty when all are known). */
    public List<String> unknownKeys(Collection<String> given) {
        List<String> out = new ArrayList<>(new TreeSet<>(given));
        out.removeIf(options::containsKey);
        return out;
    }

    /**
     * Parses the user's values over the defaults. {@code prefix} (e.g. {@code "env."}, {@code "control.admission."},
     * or "") is put before each key in messages.
     *
     * @throws ConfigException naming the unknown key(s) and the allowed ones, or the first bad value
     */
    public OptionValues parse(String prefix, Map<String, String> given) {
        List<String> unknown = unknownKeys(given.keySet());
        if (!unknown.isEmpty()) {
            throw new ConfigException((unknown.size() == 1 ? "unknown option " : "unknown options ")
                    + unknown.stream().map(k -> prefix + k).toList()
                    + "; allowed: "
                    + (options.isEmpty()
                            ? "none"
                            : names().stream().map(k -> prefix + k).toList()));
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (Option<?> o : options.values()) {
            String raw = given.get(o.name());
            values.put(o.name(), raw == null ? o.defaultValue() : o.parse(prefix + o.name(), raw));
        }
        return new OptionValues(this, values);
    }

    /** The defaults, as {@link #parse} with no values. */
    public OptionValues defaults() {
        return parse("", Map.of());
    }

    /** The reference table of these options (header and one row each, sorted by key), every key after {@code prefix}. */
    public String referenceTable(String prefix) {
        StringBuilder sb = new StringBuilder(Option.REFERENCE_HEADER).append('\n');
        for (String n : names()) {
            sb.append(options.get(n).referenceRow(prefix)).append('\n');
        }
        return sb.toString();
    }

    /**
     * Options declared the old way, as {@code key → "default — doc"} strings: each becomes a text option with that
     * default and no further check. Only for {@code ControlLoopProvider.options()} providers not yet migrated.
     */
    public static OptionSet fromLegacy(Map<String, String> defaultDashDoc) {
        List<Option<?>> out = new ArrayList<>();
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(defaultDashDoc).entrySet()) {
            String v = e.getValue();
            int i = v.indexOf(" — ");
            String def = (i < 0 ? v : v.substring(0, i)).trim();
            String doc = i < 0 ? "" : v.substring(i + 3).trim();
            out.add(Option.of(e.getKey(), "text", def, null, true, s -> s, s -> null, s -> s, "see meaning", "", doc));
        }
        return of(out);
    }

    @Override
    public String toString() {
        return "OptionSet" + names();
    }
}
