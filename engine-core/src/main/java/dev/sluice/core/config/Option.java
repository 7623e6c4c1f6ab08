package dev.sluice.core.config;

import dev.sluice.core.ConfigException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key: its name, type, default, allowed values, unit and documentation. It parses a value given as
 * text, checks a typed value, and renders its row of the configuration reference, so that a key is declared once and
 * the parser, the validation and the README cannot disagree. Immutable and thread-safe.
 *
 * <p>Declare options as constants next to the code that uses them, and read them through an {@link OptionSet}:
 *
 * <pre>{@code
 * static final Option<Double> K1 = Option.doubleOption("k1", 0.5, 0, 10, "", "Eq. 2 proportional weight K1");
 * static final OptionSet OPTIONS = OptionSet.of(K1, ...);
 * double k1 = OPTIONS.parse("control.admission.", userValues).get(K1);
 * }</pre>
 *
 * <p>Every error is a {@link ConfigException} naming the key, the value and what is allowed, e.g. {@code tick.period.ms
 * = 5 is out of range (allowed: 10 to 60000 ms)}.
 *
 * <p>Units: sizes in KiB/MiB are powers of two (KiB = 2<sup>10</sup> bytes, MiB = 2<sup>20</sup> bytes); every option
 * named {@code mbps} is in MiB/s.
 *
 * @param <T> the parsed type
 */
public final class Option<T> {
    /** Unit of every {@code *.mbps} option: 2<sup>20</sup> bytes per second. */
    public static final String MIB_PER_SECOND = "MiB/s";

    /** Bytes per MiB, the unit of every {@code *.mbps} option. */
    public static final double MIB = 1024.0 * 1024.0;

    private final String name;
    private final String type;
    private final T defaultValue;
    private final String defaultText;
    private final boolean acceptsEmpty;
    private final Function<String, T> parser;
    private final Function<T, String> problem;
    private final Function<T, String> render;
    private final String allowed;
    private final String unit;
    private final String doc;

    private Option(
            String name,
            String type,
            T defaultValue,
            String defaultText,
            boolean acceptsEmpty,
            Function<String, T> parser,
            Function<T, String> problem,
            Function<T, String> render,
            String allowed,
            String unit,
            String doc) {
        if (name == null || name.isBlank() || !name.equals(name.trim())) {
            throw new IllegalArgumentException("option name must be non-empty without spaces: '" + name + "'");
        }
        this.name = name;
        this.type = Objects.requireNonNull(type);
        this.defaultValue = defaultValue;
        this.acceptsEmpty = acceptsEmpty;
        this.parser = Objects.requireNonNull(parser);
        this.problem = Objects.requireNonNull(problem);
        this.render = Objects.requireNonNull(render);
        this.allowed = Objects.requireNonNull(allowed);
        this.unit = unit == null ? "" : unit;
        this.doc = Objects.requireNonNull(doc);
        String shown = defaultValue == null ? "" : render.apply(defaultValue);
        this.defaultText = !shown.isEmpty() ? shown : defaultText != null ? defaultText : "(none)";
        if (defaultValue != null) {
            String p = problem.apply(defaultValue);
            if (p != null) {
                throw new IllegalArgumentException("default of option " + name + " " + p + suffix());
            }
        }
    }

    // ---- factories ----

    /** A whole number in [min, max]; accepts underscores ({@code 64_000}). */
    public static Option<Long> longOption(String name, long def, long min, long max, String unit, String doc) {
        return new Option<>(
                name,
                "integer",
                def,
                null,
                false,
                Option::parseLong,
                v -> v < min || v > max ? "is out of range" : null,
                String::valueOf,
                min + " to " + max,
                unit,
                doc);
    }

    /** A whole number in [min, max] that fits an int. */
    public static Option<Integer> intOption(String name, int def, int min, int max, String unit, String doc) {
        return new Option<>(
                name,
                "integer",
                def,
                null,
                false,
                s -> {
                    long l = parseLong(s);
                    if (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
                        throw new IllegalArgumentException("is out of range");
                    }
                    return (int) l;
                },
                v -> v < min || v > max ? "is out of range" : null,
                String::valueOf,
                min + " to " + max,
                unit,
                doc);
    }

    /**
     * A rate: 0 (no limit) or a finite number in [least, max]. A positive value below {@code least} is refused: a native
     * scheduler's wait (bytes × 1e9 / rate, as a 64-bit integer) overflows for subnormal rates such as 4.9e-324.
     */
    public static Option<Double> rateOption(
            String name, double def, double least, double max, String unit, String doc) {
        return numberOption(
                name,
                def,
                v -> v == 0 || v >= least && v <= max,
                "0, or " + number(least) + " to " + number(max),
                unit,
                doc);
    }

    /**
     * An optional rate-like number without a default: unset (absent or empty; {@code unsetText}, e.g. "(env.chunk.kb)",
     * says what that means to whoever reads the option) or 0 or a finite number in [least, max].
     */
    public static Option<Double> optionalRateOption(
            String name, String unsetText, double least, double max, String unit, String doc) {
        return new Option<>(
                name,
                "number",
                null,
                unsetText,
                true,
                v -> v.isEmpty() ? null : parseDouble(v),
                v -> v == null || v == 0 || v >= least && v <= max ? null : "is out of range",
                v -> v == null ? "" : number(v),
                "0, or " + number(least) + " to " + number(max),
                unit,
                doc);
    }

    /** A finite number in [min, max]. */
    public static Option<Double> doubleOption(
            String name, double def, double min, double max, String unit, String doc) {
        return numberOption(name, def, v -> v >= min && v <= max, number(min) + " to " + number(max), unit, doc);
    }

    /** A finite number for which {@code ok} holds; {@code allowed} says which, for messages and the reference. */
    private static Option<Double> numberOption(
            String name, double def, java.util.function.DoublePredicate ok, String allowed, String unit, String doc) {
        return new Option<>(
                name,
                "number",
                def,
                null,
                false,
                Option::parseDouble,
                v -> ok.test(v) ? null : "is out of range",
                Option::number,
                allowed,
                unit,
                doc);
    }

    /** {@code true} or {@code false} (any case). */
    public static Option<Boolean> booleanOption(String name, boolean def, String doc) {
        return new Option<>(
                name,
                "boolean",
                def,
                null,
                false,
                s -> switch (s.toLowerCase(Locale.ROOT)) {
                    case "true" -> true;
                    case "false" -> false;
                    default -> throw new IllegalArgumentException("is not true or false");
                },
                v -> null,
                String::valueOf,
                "true, false",
                "",
                doc);
    }

    /** One of {@code allowed} (compared ignoring case; the value is returned lower-case). */
    public static Option<String> choiceOption(String name, String def, List<String> allowed, String doc) {
        List<String> values = List.copyOf(allowed);
        return new Option<>(
                name,
                "choice",
                def,
                null,
                false,
                s -> s.toLowerCase(Locale.ROOT),
                v -> values.contains(v) ? null : "is not allowed",
                v -> v,
                String.join(", ", values),
                "",
                doc);
    }

    /**
     * An option of any other type.
     *
     * @param defaultValue the default, or null when there is none
     * @param noDefaultText shown as the default when {@code defaultValue} is null or renders empty, e.g. "(required)";
     *     null means "(none)"
     * @param acceptsEmpty whether an empty value is passed to {@code parser} (else it is refused as "KEY is empty")
     * @param parser text (trimmed) to value; throws {@link IllegalArgumentException} with the problem, e.g. "is not a
     *     path"; it may return null for "not set" when {@code acceptsEmpty}
     * @param problem the problem with a parsed value ("is out of range"), or null when it is allowed
     * @param render value to the text that parses back to it
     * @param allowed what is allowed, for messages and the reference
     */
    public static <T> Option<T> of(
            String name,
            String type,
            T defaultValue,
            String noDefaultText,
            boolean acceptsEmpty,
            Function<String, T> parser,
            Function<T, String> problem,
            Function<T, String> render,
            String allowed,
            String unit,
            String doc) {
        return new Option<>(
                name, type, defaultValue, noDefaultText, acceptsEmpty, parser, problem, render, allowed, unit, doc);
    }

    /** The same option under another default (e.g. a key whose default depends on the mode it is used in). */
    public Option<T> withDefault(T def) {
        return new Option<>(name, type, def, defaultText, acceptsEmpty, parser, problem, render, allowed, unit, doc);
    }

    // ---- use ----

    public String name() {
        return name;
    }

    /** integer, number, boolean, choice, or what {@link #of} was given. */
    public String type() {
        return type;
    }

    /** The default, or null when there is none ({@link #defaultText()} says why). */
    public T defaultValue() {
        return defaultValue;
    }

    /** The default as text: its rendered value, or (when it has none or it renders empty) e.g. "(required)", "(none)". */
    public String defaultText() {
        return defaultText;
    }

    public String allowed() {
        return allowed;
    }

    /** Unit of the value ("ms", "bytes", "MiB/s"...), empty when it has none. */
    public String unit() {
        return unit;
    }

    public String doc() {
        return doc;
    }

    /** Parses and checks {@code raw} (trimmed); errors name this option's key. */
    public T parse(String raw) {
        return parse(name, raw);
    }

    /** Parses and checks {@code raw}; errors name {@code key} (the option's name under a prefix, e.g. env.KEY). */
    public T parse(String key, String raw) {
        String v = raw == null ? "" : raw.trim();
        if (v.isEmpty() && !acceptsEmpty) {
            throw new ConfigException(key + " is empty" + suffix());
        }
        T value;
        try {
            value = parser.apply(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " = '" + v + "' " + e.getMessage() + suffix());
        }
        return check(key, value, "'" + v + "'");
    }

    /** Checks a typed value (e.g. one given to a builder); errors name this option's key. */
    public T check(T value) {
        return check(name, value, value == null ? "null" : render.apply(value));
    }

    private T check(String key, T value, String shown) {
        if (value == null) {
            if (!acceptsEmpty) {
                throw new ConfigException(key + " must be set" + suffix());
            }
            return null;
        }
        String p = problem.apply(value);
        if (p != null) {
            throw new ConfigException(key + " = " + shown + " " + p + suffix());
        }
        return value;
    }

    /** A value as text that {@link #parse} reads back; null renders as the empty string. */
    public String render(T value) {
        return value == null ? "" : render.apply(value);
    }

    /** Renders a value of this option that is only known as Object (e.g. from {@link OptionValues}). */
    @SuppressWarnings("unchecked")
    String renderObject(Object value) {
        return render((T) value);
    }

    /** This option's row of a Markdown reference table: key (with {@code prefix}), default, unit, allowed, doc. */
    public String referenceRow(String prefix) {
        return "| `" + prefix + name + "` | " + (defaultText.startsWith("(") ? defaultText : "`" + defaultText + "`")
                + " | " + escape(unit) + " | " + escape(allowed) + " | " + escape(doc) + " |";
    }

    /** Header of the table {@link #referenceRow} renders into. */
    public static final String REFERENCE_HEADER = "| key | default | unit | allowed | meaning |\n|---|---|---|---|---|";

    @Override
    public String toString() {
        return name + " (" + type + ", default " + defaultText + ", allowed " + allowed
                + (unit.isEmpty() ? "" : ", " + unit) + ")";
    }

    private String suffix() {
        return " (allowed: " + allowed + (unit.isEmpty() ? "" : " " + unit) + ")";
    }

    private static String escape(String s) {
        return s.replace("|", "\\|");
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is not a whole number");
        }
    }

    private static double parseDouble(String s) {
        double d;
        try {
            d = Double.parseDouble(s.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is not a number");
        }
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException("is not a finite number");
        }
        return d;
    }

    /** A number as short text: 10.0 → "10", 0.5 → "0.5", 1e9 → "1000000000". */
    public static String number(double d) {
        if (!Double.isFinite(d)) {
            return String.valueOf(d);
        }
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }

    /**
     * A duration given in milliseconds, in [min, max]. Checking a {@link Duration} compares durations, so no value
     * overflows (a duration of {@code Long.MAX_VALUE} seconds is "out of range", not an ArithmeticException).
     */
    public static Option<Duration> millisOption(String name, Duration def, Duration min, Duration max, String doc) {
        return new Option<>(
                name,
                "duration",
                def,
                null,
                false,
                s -> Duration.ofMillis(parseLong(s)),
                v -> v.compareTo(min) < 0 || v.compareTo(max) > 0 ? "is out of range" : null,
                Option::millis,
                millis(min) + " to " + millis(max),
                "ms",
                doc);
    }

    private static String millis(Duration d) {
        try {
            Duration whole = Duration.ofMillis(d.toMillis());
            return whole.equals(d) ? Long.toString(d.toMillis()) : number(d.toNanos() / 1e6);
        } catch (ArithmeticException e) {
            return d.toString();
        }
    }
}
