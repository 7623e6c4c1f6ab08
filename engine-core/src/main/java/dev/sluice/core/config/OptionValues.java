package dev.sluice.core.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Typed values of an {@link OptionSet}, every option present (the user's value or its default). Immutable. */
public final class OptionValues {
    private final OptionSet set;
    private final Map<String, Object> values;

    OptionValues(OptionSet set, Map<String, Object> values) {
        this.set = set;
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /**
     * The value of {@code option}.
     *
     * @throws IllegalArgumentException when the option is not part of this set (a programming error)
     */
    @SuppressWarnings("unchecked")
    public <T> T get(Option<T> option) {
        if (!values.containsKey(option.name())) {
            throw new IllegalArgumentException("option '" + option.name() + "' is not declared in " + set);
        }
        return (T) values.get(option.name());
    }

    /** Every value rendered as text that parses back to it, sorted by key. */
    public Map<String, String> asStrings() {
        Map<String, String> m = new TreeMap<>();
        values.forEach((k, v) -> m.put(k, set.get(k).orElseThrow().renderObject(v)));
        return Collections.unmodifiableMap(m);
    }

    @Override
    public String toString() {
        return asStrings().toString();
    }
}
