package dev.sluice.bench.runner;

/**
 * A {@code sluice bench} argument or a stack's configuration is wrong; the message (one line) names the argument, or
 * the scenario, the stack and the key. Thrown before anything runs or is written.
 */
public final class BenchInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public BenchInputException(String message) {
        super(message);
    }

    public BenchInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
