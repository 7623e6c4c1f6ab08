package dev.sluice.bench.runner;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The longest interval in which no write completed (vLSM §5's write stall: "the time server throughput drops to zero"),
 * over the measured phases that write. Workers report each write's completion time; the window loop opens a segment at
 * a measured phase's start and closes it at its end, so the time from the start to the first write and from the last
 * write to the end counts too. Measured phases with no writes in their mix open no segment.
 *
 * <p>Thread-safety: {@link #completed} from any thread (lock-free); {@link #start}, {@link #stop} and {@link
 * #longestNanos} from the window loop. Completions reported out of order (a slow worker reporting an earlier time) never
 * create a gap: the last completion only moves forward.
 */
final class WriteGaps {
    private final AtomicLong last = new AtomicLong();
    private final AtomicLong longest = new AtomicLong(-1);
    private volatile boolean measuring;

    /** A measured segment begins at {@code nanos}. */
    void start(long nanos) {
        last.set(nanos);
        longest.compareAndSet(-1, 0);
        measuring = true;
    }

    /** A write completed at {@code nanos}. */
    void completed(long nanos) {
        if (!measuring) {
            return;
        }
        long prev = last.getAndAccumulate(nanos, Math::max);
        if (nanos > prev) {
            longest.accumulateAndGet(nanos - prev, Math::max);
        }
    }

    /** The segment ends at {@code nanos}; the time since the last write counts. */
    void stop(long nanos) {
        if (!measuring) {
            return;
        }
        measuring = false;
        long prev = last.get();
        if (nanos > prev) {
            longest.accumulateAndGet(nanos - prev, Math::max);
        }
    }

    boolean measuring() {
        return measuring;
    }

    /** The longest gap so far, in nanoseconds; -1 when no segment was measured. */
    long longestNanos() {
        return longest.get();
    }
}
