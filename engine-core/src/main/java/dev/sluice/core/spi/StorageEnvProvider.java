package dev.sluice.core.spi;

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
     * The options this Env understands, key → "default — doc". Users set them as {@code env.<key>}; other keys under
     * {@code env.} are errors.
     */
    Map<String, String> options();

    /**
     * Checks option values without opening anything (no native code loaded, nothing written); throws {@link
     * IllegalArgumentException} naming the first bad key. {@code options} are the defaults merged with the user's values.
     */
    default void validate(Map<String, String> options) {}

    /** Opens the Env; {@code options} are the defaults merged with the user's {@code env.*} values. */
    StorageEnv open(Map<String, String> options);
}
