package dev.sluice.core;

/** The partition (tenant) exceeded its RCU/WCU quota and is configured to reject rather than throttle. */
public class QuotaExceededException extends SluiceException {
    public QuotaExceededException(String message) {
        super(message);
    }
}
