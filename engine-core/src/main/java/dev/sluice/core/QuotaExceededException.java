package dev.sluice.core;

/**
 * The partition (tenant) exceeded its RCU/WCU quota and is configured to reject rather than throttle (or a throttled
 * request would have waited longer than {@code quota.max.wait.ms}). The message names the partition, its quota and the
 * setting that refused the request; nothing was written.
 *
 * <p>Carries no stack trace: it is a flow-control signal that an over-quota tenant may raise thousands of times a
 * second, and filling a trace for each would cost the other tenants CPU.
 */
public class QuotaExceededException extends SluiceException {
    public QuotaExceededException(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
