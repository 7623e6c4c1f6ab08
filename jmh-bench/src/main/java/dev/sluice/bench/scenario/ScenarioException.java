package dev.sluice.bench.scenario;

/**
 * A scenario file is wrong. The message always names the file, the line and (when one is at fault) the key, e.g. {@code
 * quick.scenario:14: [phase main] mix: unknown operation 'raed' (known: insert, update, read, scan, rmw)}.
 */
public final class ScenarioException extends RuntimeException {
    private final String file;
    private final int line;
    private final String key;

    public ScenarioException(String file, int line, String key, String message) {
        super(file + ":" + line + ": " + (key == null ? "" : key + ": ") + message);
        this.file = file;
        this.line = line;
        this.key = key;
    }

    public String file() {
        return file;
    }

    /** 1-based line number; 0 when the problem concerns the whole file. */
    public int line() {
        return line;
    }

    /** The key at fault, or null. */
    public String key() {
        return key;
    }
}
