package dev.sluice.core;

/**
 * The request was refused by admission control because the partition's waiting queue was full or the request would have
 * waited longer than the configured bound. Nothing was written. Safe to retry later (with backoff).
 */
public class OverloadedException extends SluiceException {
    public OverloadedException(String message) {
        super(message);
    }
}
