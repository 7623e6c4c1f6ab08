package dev.sluice.core;

/** Base of every exception Sluice throws on purpose. Messages name the partition, key, field or file concerned. */
public class SluiceException extends RuntimeException {
    public SluiceException(String message) {
        super(message);
    }

    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
