package dev.sluice.core.spi;

import dev.sluice.core.config.OptionSet;
import java.util.Map;

/**
 * Supplies a {@link StorageEnv} by name (ServiceLoader file {@code META-INF/services/dev.sluice.core.spi.StorageEnvProvider}).
 */
public interface StorageEnvProvider {
    /** e.g. "priority". */
    String name();

    /** Empty when the Env can run here; otherwise why not (platform, missing native library). */
    java.util.Optional<String> unavailableReason();

    /**
     * The options this Env understands, as typed descriptors (see {@link dev.sluice.core.config.Option}). Users set them
     * as {@code env.<key>}; other keys under {@code env.} are errors. The node parses the user's values with this set
     * before calling {@link #validate} or {@link #open}, so a bad value is reported with its full key.
     */
    OptionSet options();

    /**
     * Checks option values without opening anything (no native code loaded, nothing written); throws {@link
     * IllegalArgumentException} naming the first bad key. {@code options} are the defaults merged with the user's
     * values, each rendered as text (see {@link dev.sluice.core.config.OptionValues#asStrings()}).
     */
    default void validate(Map<String, String> options) {}

    /** Opens the Env; {@code options} are the defaults merged with the user's {@code env.*} values. */
    StorageEnv open(Map<String, String> options);
}
