package dev.sluice.core.control;

import dev.sluice.core.config.OptionSet;
import java.util.Map;

/**
 * Registers a controller under a name for {@link java.util.ServiceLoader} (file {@code
 * META-INF/services/dev.sluice.core.control.ControlLoopProvider}). The node creates one loop per provider named in its
 * {@code controls} list, in that order.
 *
 * <h2>Declaring options</h2>
 *
 * Declare each option once, as a typed {@link dev.sluice.core.config.Option} constant (name, default, range, unit,
 * doc), return them from {@link #optionSet()}, and read them in {@link #create} with {@link ControlContext#get}:
 *
 * <pre>{@code
 * static final Option<Double> GAIN = Option.doubleOption("gain", 0.5, 0, 10, "", "proportional gain");
 * static final Option<Long> PERIOD = Option.longOption("period.ms", 1000, 10, 60_000, "ms", "adjustment period");
 *
 * public OptionSet optionSet() { return OptionSet.of(GAIN, PERIOD); }
 *
 * public ControlLoop create(ControlContext ctx) {
 *     return new MyLoop(ctx.get(GAIN), ctx.get(PERIOD));
 * }
 * }</pre>
 *
 * Users set them as {@code control.<name>.<key>}. Before {@code create} is called the node parses the user's values
 * with that set: an unknown key, a value that is not a number, or one out of range is refused with a {@link
 * dev.sluice.core.ConfigException} naming the full key, the value and what is allowed; the configuration reference
 * (README, {@code ./sluice config}) is rendered from the same descriptors. Checks across options (e.g. target below
 * high) stay in {@code create}: throw {@link IllegalArgumentException} naming the options.
 *
 * <p><b>Migrating from {@link #options()}</b> (the old {@code key → "default — doc"} map): turn each entry into an
 * {@code Option} constant, return them from {@code optionSet()}, delete {@code options()}, and replace {@code
 * ctx.doubleOption(key, min, max)} / {@code ctx.longOption(...)} by {@code ctx.get(OPTION)} (the range now lives in the
 * descriptor). Until then an {@code options()} map still works: its entries become untyped text options.
 */
public interface ControlLoopProvider {
    /** Unique name, lower-case with dashes (e.g. "admission", "adoc"). */
    String name();

    /** One line for the configuration reference. */
    String description();

    /** The options this controller understands (see the class doc). */
    default OptionSet optionSet() {
        return OptionSet.fromLegacy(options());
    }

    /**
     * The old way to declare options: key → "default — doc", parsed in {@code create} with {@link
     * ControlContext#doubleOption}. Bridged into {@link #optionSet()} as untyped text options.
     *
     * @deprecated declare typed {@link dev.sluice.core.config.Option}s and override {@link #optionSet()} instead
     */
    @Deprecated
    default Map<String, String> options() {
        return Map.of();
    }

    /**
     * Whether the loop acts only through the priority Env ({@link ControlContext#io()}): a node listing it with {@code
     * env = default}, or with {@code env = auto} on a machine where the priority Env cannot load, is refused at open
     * instead of running a loop that fails or does nothing at every tick.
     */
    default boolean needsPriorityEnv() {
        return false;
    }

    /**
     * Creates the loop. {@code ctx} holds the options parsed against {@link #optionSet()} and merged over the defaults.
     * Throw {@link IllegalArgumentException} naming the option(s) on a bad combination of values.
     */
    ControlLoop create(ControlContext ctx);
}
