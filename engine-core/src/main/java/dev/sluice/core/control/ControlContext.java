package dev.sluice.core.control;

import com.google.common.base.Ticker;
import dev.sluice.core.ConfigException;
import dev.sluice.core.config.Option;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.IoControl;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link ControlLoopProvider} may use while creating its loop: its options, the partitions, the ticker, and the
 * few hooks that must be wired once at start (admission gates). Loops never keep a reference to engine objects.
 */
public interface ControlContext {
    /**
     * This controller's options as text, defaults merged with the user's {@code control.<name>.*} values, already
     * checked against the provider's {@link ControlLoopProvider#optionSet()}. Prefer {@link #get}.
     */
    Map<String, String> options();

    /**
     * The typed value of one of the provider's options (the user's value or the default).
     *
     * @throws IllegalArgumentException naming the key when the value does not parse (cannot happen for an option of
     *     the provider's {@link ControlLoopProvider#optionSet()}: the node has parsed those already)
     */
    default <T> T get(Option<T> option) {
        String v = options().get(option.name());
        if (v == null) {
            return option.defaultValue();
        }
        try {
            return option.parse(v);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    List<String> partitions();

    Ticker ticker();

    /** The tick period of the control plane in nanoseconds. */
    long tickNanos();

    /** Puts a gate in front of the partition's requests; replaces the open gate. At most one gate per partition. */
    void installAdmissionGate(String partition, AdmissionGate gate);

    /** The priority Env's scheduler, when the node runs on it. */
    Optional<IoControl> io();

    /** The RCU/WCU quota of {@code partition} now (tenant controllers read it; unlimited when none is set). */
    default dev.sluice.core.quota.PartitionQuota quota(String partition) {
        return dev.sluice.core.quota.PartitionQuota.UNLIMITED;
    }

    /**
     * Puts a {@link dev.sluice.core.spi.ReadCache} in front of the partition's point reads (at most one per partition)
     * and binds it to the partition's engine reader. The partition closes it when it closes.
     */
    default void installReadCache(String partition, dev.sluice.core.spi.ReadCache cache) {
        throw new UnsupportedOperationException("this node cannot install a read cache");
    }

    /** Where hooks installed by the controller (caches, gates) register their meters. */
    default io.micrometer.core.instrument.MeterRegistry meterRegistry() {
        return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    }

    /**
     * Reads an option as a double, naming the key in the error when it is not a number or out of range.
     *
     * @deprecated declare an {@link Option} with its range and use {@link #get} (see {@link ControlLoopProvider})
     */
    @Deprecated
    default double doubleOption(String key, double min, double max) {
        String v = options().get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing option '" + key + "'");
        }
        double d;
        try {
            d = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option '" + key + "' = '" + v + "' is not a number");
        }
        if (!(d >= min && d <= max)) {
            throw new IllegalArgumentException(
                    "option '" + key + "' = " + v + " is out of range [" + min + ", " + max + "]");
        }
        return d;
    }

    /** @deprecated declare an {@link Option} with its range and use {@link #get} (see {@link ControlLoopProvider}) */
    @Deprecated
    default long longOption(String key, long min, long max) {
        double d = doubleOption(key, min, max);
        if (d != Math.rint(d)) {
            throw new IllegalArgumentException(
                    "option '" + key + "' = " + options().get(key) + " is not a whole number");
        }
        return (long) d;
    }
}
