package dev.sluice.ratelimit.admission;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A token bucket that hands out <em>reservations</em>: each request is given the instant at which its token exists, in
 * arrival order. That is CruiseDB's request waiting queue (RWQ) without a data structure: the queue is the sequence of
 * future reservation instants, so it is FIFO by construction and admission is a single CAS.
 *
 * <h2>Model</h2>
 *
 * Tokens accrue at {@code rate} per second up to a small burst ({@code burstNanos} worth of tokens) while the bucket is
 * idle. A request that finds a stored token proceeds now. Otherwise it is given the instant {@code nextFree}, and
 * {@code nextFree} advances by {@code 1/rate}. So over any interval of length {@code W}, at most {@code rate·W + burst}
 * requests are admitted, and a request waits {@code (position in queue)/rate}.
 *
 * <h2>Bounds</h2>
 *
 * A request whose wait would exceed {@code maxWaitNanos} is refused without taking a slot (callers turn this into {@code
 * OverloadedException}); the queue length is therefore at most {@code rate·maxWait}, whatever the offered load. The
 * gate adds an explicit cap on waiters as well.
 *
 * <h2>Rate changes</h2>
 *
 * As in Guava's {@code SmoothRateLimiter}, changing the rate keeps reservations already handed out and spaces later ones
 * at the new rate; with a bounded wait, the old reservations drain within {@code maxWait}.
 *
 * <p>State is immutable and swapped with CAS ({@link AtomicReference}), like resilience4j's {@code AtomicRateLimiter}.
 * Thread-safe; lock-free.
 */
final class TokenBucket {
    /** Immutable state: when the next token is free, tokens stored as of that instant, and the rate. */
    record State(long nextFreeNanos, double storedTokens, double ratePerSecond) {}

    /** Result of a reservation: {@code waitNanos < 0} means refused. */
    static final long REFUSED = -1;

    private final AtomicReference<State> state;
    private final long burstNanos;

    TokenBucket(double ratePerSecond, long burstNanos, long nowNanos) {
        checkRate(ratePerSecond);
        this.burstNanos = burstNanos;
        this.state = new AtomicReference<>(new State(nowNanos, 0, ratePerSecond));
    }

    private static void checkRate(double r) {
        if (!(r > 0)) {
            throw new IllegalArgumentException("rate must be > 0 (use POSITIVE_INFINITY for unlimited), was " + r);
        }
    }

    double rate() {
        return state.get().ratePerSecond();
    }

    /** Sets a new rate from {@code now} on (stored tokens are kept, capped at the new burst). */
    void setRate(double ratePerSecond, long nowNanos) {
        checkRate(ratePerSecond);
        State s, n;
        do {
            s = state.get();
            State r = resync(s, nowNanos);
            n = new State(r.nextFreeNanos(), Math.min(r.storedTokens(), maxStored(ratePerSecond)), ratePerSecond);
        } while (!state.compareAndSet(s, n));
    }

    /**
     * Reserves one token. Returns the nanoseconds to wait from {@code nowNanos} (0 = go now), or {@link #REFUSED} when
     * the wait would exceed {@code maxWaitNanos} (no token is taken then).
     */
    long reserve(long nowNanos, long maxWaitNanos) {
        return reserve(nowNanos, maxWaitNanos, 1);
    }

    /**
     * Reserves {@code tokens} tokens for one request (a batch of n operations takes n). It goes when its last token
     * exists: with enough stored tokens now; otherwise it forfeits the stored ones (fewer than {@code tokens}) and waits
     * for {@code tokens} fresh ones, {@code nextFree + (tokens − 1)/rate}, and {@code nextFree} advances by {@code
     * tokens/rate} — so the rate bound holds over any interval whatever the request sizes, and {@link #giveBack} can
     * return exactly what was taken. Returns the wait, or {@link #REFUSED} when it would exceed {@code maxWaitNanos}.
     */
    long reserve(long nowNanos, long maxWaitNanos, int tokens) {
        int k = Math.max(1, tokens);
        State s, n;
        long wait;
        do {
            s = state.get();
            if (Double.isInfinite(s.ratePerSecond())) {
                return 0;
            }
            State r = resync(s, nowNanos);
            long interval = intervalNanos(r.ratePerSecond());
            if (r.storedTokens() >= k) {
                wait = Math.max(0, r.nextFreeNanos() - nowNanos);
                n = new State(r.nextFreeNanos(), r.storedTokens() - k, r.ratePerSecond());
            } else {
                wait = Math.max(0, r.nextFreeNanos() + (k - 1) * interval - nowNanos);
                n = new State(r.nextFreeNanos() + k * interval, 0, r.ratePerSecond());
            }
            if (wait > maxWaitNanos) {
                return REFUSED;
            }
        } while (!state.compareAndSet(s, n));
        return wait;
    }

    /**
     * Gives back a token reserved for the instant {@code reservedAtNanos} by a waiter that will not use it (interrupted,
     * cancelled, or failed by close). Returns whether the token was reused.
     *
     * <p>If it was the last reservation handed out and is still in the future, {@code nextFree} moves back one interval
     * and the next request takes exactly its place. Otherwise the slot stays empty: the requests behind it keep their
     * instants (FIFO, and no waiter is moved), and the token is forfeited — the admitted rate dips by one request
     * rather than exceed {@code rate}. (Storing it instead would let every such token be taken at the end of the queue
     * at one instant: a burst above the bound, found by {@code TokenBucketProperties}.)
     */
    boolean giveBack(long reservedAtNanos, long nowNanos) {
        return giveBack(reservedAtNanos, nowNanos, 1);
    }

    /**
     * Gives back the {@code tokens} tokens of a reservation due at {@code reservedAtNanos} (see {@link #reserve(long,
     * long, int)}): when it was the last one handed out, {@code nextFree} moves back to where that reservation started,
     * but not before now (the part already past is forfeited, never stored).
     */
    boolean giveBack(long reservedAtNanos, long nowNanos, int tokens) {
        int k = Math.max(1, tokens);
        State s, n;
        do {
            s = state.get();
            if (Double.isInfinite(s.ratePerSecond())
                    || reservedAtNanos <= nowNanos
                    || s.nextFreeNanos() != reservedAtNanos + intervalNanos(s.ratePerSecond())) {
                return false;
            }
            long start = reservedAtNanos - (k - 1) * intervalNanos(s.ratePerSecond());
            n = new State(Math.max(nowNanos, start), s.storedTokens(), s.ratePerSecond());
        } while (!state.compareAndSet(s, n));
        return true;
    }

    /** Moves {@code nextFree} up to now, accruing tokens for the idle time. */
    private State resync(State s, long nowNanos) {
        if (nowNanos <= s.nextFreeNanos()) {
            return s;
        }
        double accrued = (nowNanos - s.nextFreeNanos()) / (double) intervalNanos(s.ratePerSecond());
        return new State(
                nowNanos, Math.min(maxStored(s.ratePerSecond()), s.storedTokens() + accrued), s.ratePerSecond());
    }

    private double maxStored(double rate) {
        return Double.isInfinite(rate) ? 0 : Math.max(1, rate * burstNanos / 1e9);
    }

    private static long intervalNanos(double rate) {
        return Math.max(1, (long) (1e9 / rate));
    }
}
