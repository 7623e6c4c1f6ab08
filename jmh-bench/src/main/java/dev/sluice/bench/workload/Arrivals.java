package dev.sluice.bench.workload;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The open-loop arrival process shared by {@link OpenLoopDriver} and {@link AsyncOpenLoopDriver}: each request's
 * <em>intended</em> start time comes from the phase's {@link LoadShape} — evenly spaced at the current rate, or with
 * exponential gaps ({@code poisson}) — and is released when the clock reaches it, whatever the store is doing. A
 * generator that falls behind (a GC pause, a slow submission) releases the overdue arrivals at once with their original
 * intended times, so the lag shows up in latency instead of being omitted.
 *
 * <p>The schedule depends only on the shape, the flag and the seed: two drivers with the same inputs offer the same
 * arrivals. Where the shape's rate is 0 nothing arrives; the schedule looks again 1 ms later.
 *
 * <p>Thread-safety: {@link #run} is called by one thread (the driver's generator).
 */
final class Arrivals {
    private static final long IDLE_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LoadShape shape;
    private final boolean poisson;
    private final long seed;
    private final LongSupplier clock;

    Arrivals(LoadShape shape, boolean poisson, long seed, LongSupplier clock) {
        this.shape = shape;
        this.poisson = poisson;
        this.seed = seed;
        this.clock = clock;
    }

    /**
     * Calls {@code arrival} with each intended start time in {@code [startNanos, endNanos)}, in order, once the clock has
     * reached it. Returns after the last arrival before {@code endNanos}, or as soon as {@code stopped} is true.
     */
    void run(long startNanos, long endNanos, BooleanSupplier stopped, LongConsumer arrival) {
        SplittableRandom gaps = new SplittableRandom(seed);
        long next = startNanos;
        while (!stopped.getAsBoolean()) {
            long now = clock.getAsLong();
            while (next <= now) {
                if (next >= endNanos || stopped.getAsBoolean()) {
                    return;
                }
                double rate = shape.rateAt((next - startNanos) / 1e9);
                if (!(rate > 0)) {
                    next += IDLE_STEP_NANOS; // nothing offered now; look again 1 ms later
                    continue;
                }
                arrival.accept(next);
                double gapSeconds = poisson ? -Math.log(1 - gaps.nextDouble()) / rate : 1.0 / rate;
                next += Math.max(1, (long) (gapSeconds * 1e9));
            }
            if (next >= endNanos) {
                return;
            }
            long wait = next - clock.getAsLong();
            if (wait > 0) {
                LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
            }
        }
    }
}
