package dev.sluice.ratelimit.admission;

import com.google.common.base.Ticker;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.spi.AdmissionGate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * CruiseDB's request rate limiter for one partition (§V-C, §VII): a {@link TokenBucket} refilled at the admission rate
 * {@code t_k}, and a bounded request waiting queue in front of it.
 *
 * <ul>
 *   <li>Order: FIFO — tokens are reserved in arrival order.
 *   <li>Bounds: at most {@code maxQueued} requests wait at once, and none waits longer than {@code maxWait}; past either
 *       bound the request fails at once with {@link OverloadedException} and takes no token. Memory is therefore bounded
 *       at any offered load: synchronous waiters are the callers' own threads, asynchronous waiters at most {@code
 *       maxQueued} scheduled completions.
 *   <li>Async: {@link #acquireAsync} never blocks; the future completes on the shared admission timer thread at the
 *       reserved instant (callers must not run long work in a dependent stage without an executor — core hands it to its
 *       I/O pool).
 *   <li>Scope: requests outside the {@link AdmissionScope} pass without a token.
 * </ul>
 *
 * <p>Time is read through the injected {@link Ticker} and waited through the injected {@link Sleeper}.
 * Thread-safety: all methods may be called concurrently.
 */
public final class TokenBucketGate implements AdmissionGate {
    /** How a synchronous caller waits; tests inject one that advances a fake ticker. */
    public interface Sleeper {
        void sleepNanos(long nanos);

        Sleeper PARK = nanos -> {
            long deadline = System.nanoTime() + nanos;
            long left = nanos;
            while (left > 0) {
                LockSupport.parkNanos(left);
                left = deadline - System.nanoTime();
            }
        };
    }

    /** One daemon timer thread for every gate's async completions. */
    private static final class Timer {
        static final ScheduledExecutorService INSTANCE = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-admission-timer");
            t.setDaemon(true);
            return t;
        });
    }

    private final String partition;
    private final TokenBucket bucket;
    private final Ticker ticker;
    private final Sleeper sleeper;
    private final ScheduledExecutorService timer;
    private final AdmissionScope scope;
    private final int maxQueued;
    private final long maxWaitNanos;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong admitted = new AtomicLong();
    private volatile boolean closed;

    /**
     * @param initialRate requests/s ({@code POSITIVE_INFINITY}: open until a controller sets a rate)
     * @param burstNanos how many nanoseconds' worth of tokens an idle bucket may store (at least one token)
     */
    public TokenBucketGate(
            String partition,
            double initialRate,
            AdmissionScope scope,
            int maxQueued,
            long maxWaitNanos,
            long burstNanos,
            Ticker ticker,
            Sleeper sleeper,
            ScheduledExecutorService timer) {
        if (maxQueued < 1) {
            throw new IllegalArgumentException("option 'queue.max' must be >= 1, was " + maxQueued);
        }
        if (maxWaitNanos < 0) {
            throw new IllegalArgumentException("option 'wait.max.ms' must be >= 0");
        }
        this.partition = partition;
        this.ticker = ticker;
        this.sleeper = sleeper;
        this.timer = timer;
        this.scope = scope;
        this.maxQueued = maxQueued;
        this.maxWaitNanos = maxWaitNanos;
        this.bucket = new TokenBucket(initialRate, burstNanos, ticker.read());
    }

    /** A gate on the real clock with the shared timer thread. */
    public static TokenBucketGate create(
            String partition,
            double initialRate,
            AdmissionScope scope,
            int maxQueued,
            long maxWaitNanos,
            long burstNanos) {
        return new TokenBucketGate(
                partition,
                initialRate,
                scope,
                maxQueued,
                maxWaitNanos,
                burstNanos,
                Ticker.systemTicker(),
                Sleeper.PARK,
                Timer.INSTANCE);
    }

    /** Reserves a token: wait nanos, or throws OverloadedException. Increments {@code queued} when the caller must wait. */
    private long reserve() {
        if (closed) {
            throw new OverloadedException("partition '" + partition + "': admission gate closed");
        }
        if (queued.get() >= maxQueued) {
            rejected.incrementAndGet();
            throw new OverloadedException("partition '" + partition + "': admission queue full (" + maxQueued
                    + " waiting at " + rateText() + ")");
        }
        long wait = bucket.reserve(ticker.read(), maxWaitNanos);
        if (wait == TokenBucket.REFUSED) {
            rejected.incrementAndGet();
            throw new OverloadedException("partition '" + partition + "': admission would wait over "
                    + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms at " + rateText());
        }
        if (wait > 0) {
            queued.incrementAndGet();
        }
        return wait;
    }

    private String rateText() {
        return String.format("%.0f requests/s", bucket.rate());
    }

    @Override
    public void acquire(RequestKind kind, long bytes) {
        if (!scope.covers(kind)) {
            return;
        }
        long wait = reserve();
        if (wait > 0) {
            try {
                sleeper.sleepNanos(wait);
            } finally {
                queued.decrementAndGet();
            }
        }
        admitted.incrementAndGet();
    }

    @Override
    public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes) {
        if (!scope.covers(kind)) {
            return CompletableFuture.completedFuture(null);
        }
        long wait;
        try {
            wait = reserve();
        } catch (OverloadedException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (wait == 0) {
            admitted.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        timer.schedule(
                () -> {
                    queued.decrementAndGet();
                    if (closed) {
                        f.completeExceptionally(
                                new OverloadedException("partition '" + partition + "': admission gate closed"));
                    } else {
                        admitted.incrementAndGet();
                        f.complete(null);
                    }
                },
                wait,
                TimeUnit.NANOSECONDS);
        return f;
    }

    @Override
    public void setRate(double requestsPerSecond) {
        bucket.setRate(requestsPerSecond, ticker.read());
    }

    @Override
    public double rate() {
        return bucket.rate();
    }

    @Override
    public int queued() {
        return queued.get();
    }

    @Override
    public long rejected() {
        return rejected.get();
    }

    /** Requests let through since creation (in scope). */
    public long admitted() {
        return admitted.get();
    }

    public AdmissionScope scope() {
        return scope;
    }

    /** Refuses new requests; waiting async requests fail when their slot comes; sync waiters finish their wait. */
    @Override
    public void close() {
        closed = true;
    }
}
