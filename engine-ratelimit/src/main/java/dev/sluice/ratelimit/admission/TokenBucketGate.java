package dev.sluice.ratelimit.admission;

import com.google.common.base.Ticker;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.spi.AdmissionGate;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 *       bound the request fails at once with {@link OverloadedException} and takes no token. The cap is exact under
 *       concurrency: a caller first takes a place with a CAS on the counter (failing when it is full) and only then
 *       reserves a token, giving the place back if it need not wait. Memory is therefore bounded at any offered load:
 *       synchronous waiters are the callers' own threads, asynchronous waiters at most {@code maxQueued} scheduled
 *       completions.
 *   <li>Async: {@link #acquireAsync} never blocks; the future completes on the shared admission timer thread at the
 *       reserved instant (callers must not run long work in a dependent stage without an executor — core hands it to its
 *       I/O pool). Cancelling the future before then frees its place and gives its token back.
 *   <li>Interrupts: a synchronous waiter whose thread is interrupted (before or while it waits) stops waiting at once,
 *       gives its token back and throws {@link AdmissionInterruptedException} with the interrupt flag set again.
 *   <li>Close: {@link #close} refuses new requests and fails every waiter at once — synchronous waiters are woken and
 *       throw {@link OverloadedException} ("closed"), asynchronous futures complete exceptionally with it.
 *   <li>Scope: requests outside the {@link AdmissionScope} pass without a token.
 * </ul>
 *
 * <p>Each waiter ends exactly once — admitted, interrupted, cancelled or closed — decided by a CAS on its own flag, and
 * whoever wins frees its place (and, unless admitted, gives its token back: the next request takes it when it was the
 * last one reserved, else its slot stays empty so that nobody behind it moves and the rate is never exceeded — see
 * {@link TokenBucket#giveBack}). A request registers as a waiter before it re-checks {@code closed}, and {@code close()}
 * sets {@code closed} before it walks the waiters, so none is missed.
 *
 * <p>Time is read through the injected {@link Ticker} and waited through the injected {@link Sleeper}.
 * Thread-safety: all methods may be called concurrently.
 */
public final class TokenBucketGate implements AdmissionGate {
    /**
     * How a synchronous caller waits; tests inject one that advances a fake ticker. It may return early (the gate reads
     * the ticker again and waits the rest) and should throw {@link InterruptedException} when the thread is
     * interrupted; the gate also checks the interrupt flag itself after every return.
     */
    public interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;

        /** Parks the thread once for at most {@code nanos}; {@link TokenBucketGate#close} unparks it. */
        Sleeper PARK = nanos -> {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            LockSupport.parkNanos(nanos);
            if (Thread.interrupted()) {
                throw new InterruptedException();
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

    /** A request holding a place in the queue and a token reserved for {@code dueNanos}. */
    private final class Waiter {
        final long dueNanos;
        final int tokens;
        final Thread thread; // sync waiters
        final CompletableFuture<Void> future; // async waiters
        volatile ScheduledFuture<?> task;
        private final AtomicBoolean ended = new AtomicBoolean();

        Waiter(long dueNanos, int tokens, Thread thread, CompletableFuture<Void> future) {
            this.dueNanos = dueNanos;
            this.tokens = tokens;
            this.thread = thread;
            this.future = future;
        }

        /** Ends this wait if nobody else has: frees the place, and gives the token back unless admitted. */
        boolean end(boolean admit) {
            if (!ended.compareAndSet(false, true)) {
                return false;
            }
            waiters.remove(this);
            if (!admit) {
                bucket.giveBack(dueNanos, ticker.read(), tokens);
            }
            queued.decrementAndGet();
            if (admit) {
                admitted.incrementAndGet();
            }
            return true;
        }

        boolean ended() {
            return ended.get();
        }
    }

    private final String partition;
    private final TokenBucket bucket;
    private final Ticker ticker;
    private final Sleeper sleeper;
    private final ScheduledExecutorService timer;
    private final AdmissionScope scope;
    private final int maxQueued;
    private final long maxWaitNanos;
    /** Places taken: waiters, plus callers between taking a place and learning they need not wait. */
    private final AtomicInteger queued = new AtomicInteger();

    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
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

    private OverloadedException closedError() {
        return new OverloadedException("partition '" + partition + "': admission gate closed");
    }

    /**
     * Takes a place and reserves a token. Returns the instant the token is due, or {@code Long.MIN_VALUE} when the
     * caller may go now (the place is given back then). Throws OverloadedException when closed, full or the wait would
     * exceed the bound (no place and no token kept).
     */
    private long reserve(int tokens) {
        if (closed) {
            throw closedError();
        }
        if (Double.isInfinite(bucket.rate())) {
            return Long.MIN_VALUE; // an open gate: no token, no place (and no contended counter)
        }
        int q;
        do {
            q = queued.get();
            if (q >= maxQueued) {
                rejected.incrementAndGet();
                throw new OverloadedException("partition '" + partition + "': admission queue full (" + maxQueued
                        + " waiting at " + rateText() + ")");
            }
        } while (!queued.compareAndSet(q, q + 1));
        long now = ticker.read();
        long wait = bucket.reserve(now, maxWaitNanos, tokens);
        if (wait == TokenBucket.REFUSED) {
            queued.decrementAndGet();
            rejected.incrementAndGet();
            throw new OverloadedException("partition '" + partition + "': admission"
                    + (tokens > 1 ? " of a request of " + tokens + " operations (charged as " + tokens + ")" : "")
                    + " would wait over " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms at " + rateText());
        }
        if (wait == 0) {
            queued.decrementAndGet();
            return Long.MIN_VALUE;
        }
        return now + wait;
    }

    /** Registers a waiter, then re-checks {@code closed} (close sets it before walking the waiters). */
    private Waiter register(long due, int tokens, Thread thread, CompletableFuture<Void> future) {
        Waiter w = new Waiter(due, tokens, thread, future);
        waiters.add(w);
        if (closed && w.end(false)) {
            throw closedError();
        }
        return w;
    }

    private String rateText() {
        return String.format("%.0f requests/s", bucket.rate());
    }

    @Override
    public void acquire(RequestKind kind, long bytes) {
        acquire(kind, bytes, 1);
    }

    /**
     * Admits a request of {@code operations} key operations (a batch, a multiGet) as that many requests: it takes that
     * many tokens at once, one place in the queue, and goes when its last token exists. One that would wait longer than
     * {@code wait.max.ms} for them is refused at once, naming its size — split it, or raise the bound.
     */
    @Override
    public void acquire(RequestKind kind, long bytes, int operations) {
        if (!scope.covers(kind)) {
            return;
        }
        int tokens = Math.max(1, operations);
        long due = reserve(tokens);
        if (due == Long.MIN_VALUE) {
            admitted.incrementAndGet(); // no wait, so an interrupt does not concern the gate
            return;
        }
        Waiter w = register(due, tokens, Thread.currentThread(), null);
        InterruptedException interrupt = null;
        while (!w.ended()) {
            if (interrupt != null || Thread.interrupted()) {
                if (w.end(false)) {
                    throw interrupted(interrupt != null ? interrupt : new InterruptedException());
                }
                Thread.currentThread().interrupt(); // closed meanwhile: report that, keep the flag
                break;
            }
            long left = due - ticker.read();
            if (left <= 0) {
                if (w.end(true)) {
                    return;
                }
                break;
            }
            try {
                sleeper.sleepNanos(left);
            } catch (InterruptedException e) {
                interrupt = e;
            }
        }
        throw closedError();
    }

    /** The error for an interrupted wait; sets the interrupt flag again. */
    private AdmissionInterruptedException interrupted(InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new AdmissionInterruptedException(
                "partition '" + partition + "': interrupted while waiting for admission (not admitted)", cause);
    }

    @Override
    public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes) {
        return acquireAsync(kind, bytes, 1);
    }

    /** The async form of {@link #acquire(RequestKind, long, int)}. */
    @Override
    public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes, int operations) {
        if (!scope.covers(kind)) {
            return CompletableFuture.completedFuture(null);
        }
        int tokens = Math.max(1, operations);
        long due;
        try {
            due = reserve(tokens);
        } catch (OverloadedException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (due == Long.MIN_VALUE) {
            admitted.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        Waiter w;
        try {
            w = register(due, tokens, null, f);
        } catch (OverloadedException e) {
            return CompletableFuture.failedFuture(e);
        }
        try {
            w.task = timer.schedule(
                    () -> {
                        if (w.end(true)) {
                            f.complete(null);
                        }
                    },
                    Math.max(0, due - ticker.read()),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            if (w.end(false)) {
                f.completeExceptionally(new OverloadedException(
                        "partition '" + partition + "': admission timer is shut down (" + e.getMessage() + ")"));
            }
            return f;
        }
        // The caller cancelled (or completed) the future itself: free the place and give the token back.
        f.whenComplete((v, e) -> {
            if (w.end(false)) {
                cancelTask(w);
            }
        });
        return f;
    }

    /**
     * Completes an async waiter's future exceptionally on the timer thread, like every other completion, so that the
     * caller's dependent stages do not run inside {@link #close} (core closes a partition's gate under its lifecycle
     * lock); directly if the timer no longer runs tasks.
     */
    private void failOnTimer(CompletableFuture<Void> f, OverloadedException e) {
        try {
            timer.execute(() -> f.completeExceptionally(e));
        } catch (RejectedExecutionException shutDown) {
            f.completeExceptionally(e);
        }
    }

    private static void cancelTask(Waiter w) {
        ScheduledFuture<?> t = w.task;
        if (t != null) {
            t.cancel(false);
        }
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

    /**
     * Refuses new requests and fails every waiting one now: synchronous waiters are unparked and throw {@link
     * OverloadedException} ("closed"); asynchronous waiters' timer tasks are cancelled and their futures complete
     * exceptionally with it on the timer thread right away. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (Waiter w : waiters) {
            if (w.end(false)) {
                if (w.thread != null) {
                    LockSupport.unpark(w.thread);
                } else {
                    cancelTask(w);
                    failOnTimer(w.future, closedError());
                }
            }
        }
    }
}
