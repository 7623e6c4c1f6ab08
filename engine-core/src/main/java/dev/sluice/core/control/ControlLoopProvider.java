package dev.sluice.core.control;

import java.util.Map;

/**
 * Registers a controller under a name for {@link java.util.ServiceLoader} (file {@code
 * META-INF/services/dev.sluice.core.control.ControlLoopProvider}). The node creates one loop per provider named in its
 * {@code controls} list, in that order.
 */
public interface ControlLoopProvider {
    /** Unique name, lower-case with dashes (e.g. "admission", "adoc"). */
    String name();

    /** One line for the configuration reference. */
    String description();

    /**
     * The options this controller understands, each with its default value as a string and a one-line doc (format:
     * "default — doc"). Users set them as {@code control.<name>.<key>}; any other key under that prefix is an error.
     */
    Map<String, String> options();

    /**
     * Creates the loop. {@code ctx.options()} holds the validated options merged over the defaults. Throw {@link
     * IllegalArgumentException} naming the option on a bad value.
     */
    ControlLoop create(ControlContext ctx);
}
