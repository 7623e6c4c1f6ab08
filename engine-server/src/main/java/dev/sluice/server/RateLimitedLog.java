package dev.sluice.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * An INFO line that a client can trigger at will, logged at most once per {@link #INTERVAL_NANOS}: the first line of an
 * interval is written, the rest are counted and the count goes with the next line written. Thread-safe.
 */
final class RateLimitedLog {
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private final LongSupplier clock;
    private final AtomicLong nextAllowed;
    private final AtomicLong suppressed = new AtomicLong();

    RateLimitedLog(Logger log) {
        this(log, System::nanoTime);
    }

    RateLimitedLog(Logger log, LongSupplier clock) {
        this.log = log;
        this.clock = clock;
        this.nextAllowed = new AtomicLong(clock.getAsLong());
    }

    /** Logs {@code line} now, or counts it when a line was logged less than the interval ago. Returns whether logged. */
    boolean log(String line) {
        long now = clock.getAsLong();
        long allowed = nextAllowed.get();
        if (now - allowed < 0 || !nextAllowed.compareAndSet(allowed, now + INTERVAL_NANOS)) {
            suppressed.incrementAndGet();
            return false;
        }
        long left = suppressed.getAndSet(0);
        log.info(left == 0 ? line : line + " (and " + left + " more like it since the last such line)");
        return true;
    }
}
