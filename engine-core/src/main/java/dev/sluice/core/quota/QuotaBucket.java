package dev.sluice.core.quota;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A weighted reservation bucket for capacity units (RCUs or WCUs), in the form of the generic cell rate algorithm: the
 * state is one instant, {@code tat} ("theoretical arrival time"), the moment the tenant's spending so far is paid off at
 * {@code rate}. A request of {@code n} units moves {@code tat} on by {@code n / rate} and may start once the new {@code
 * tat} is at most {@code burst} ahead of the clock: it pays before it runs. So an idle tenant may spend {@code burst}
 * worth of units at once, a request larger than that waits for its units beyond the burst, and over any interval {@code
 * W} a tenant is admitted at most {@code rate·(W + burst)} units. (Until 2026-11-29 a request started once the old
 * {@code tat} was within the burst, whatever its size: one 16-MiB write on a 100-WCU/s quota went through at once,
 * 164 times the burst, and then refused every request on the partition for 163 s.)
 *
 * <h2>Charging by size</h2>
 *
 * A request whose size is known before it runs (a write) reserves its units with {@link #reserve}. A read's size is
 * known only after it ran: it reserves its minimum (one unit) and {@link #charge}s the rest afterwards — the rest is
 * debt that moves {@code tat}, so the tenant's next requests wait for it (DynamoDB charges reads the same way).
 *
 * <h2>Rate changes</h2>
 *
 * {@link #setRate} keeps the units already owed and re-spaces them at the new rate from now on. A rate {@code <= 0}
 * means unlimited.
 *
 * <p>Immutable state swapped with CAS (like resilience4j's {@code AtomicRateLimiter}); time is passed in by the caller.
 * Thread-safe and lock-free.
 */
final class QuotaBucket {
    /** Returned by {@link #reserve} when the wait would exceed the caller's bound; nothing was taken. */
    static final long REFUSED = -1;

    private record State(long tatNanos, double ratePerSecond) {
        boolean unlimited() {
            return !(ratePerSecond > 0) || Double.isInfinite(ratePerSecond);
        }

        double nanosPerUnit() {
            return 1e9 / ratePerSecond;
        }
    }

    private final AtomicReference<State> state;
    private final long burstNanos;

    QuotaBucket(double ratePerSecond, long burstNanos, long nowNanos) {
        if (burstNanos <= 0) {
            throw new IllegalArgumentException("burst must be > 0 ns, was " + burstNanos);
        }
        this.burstNanos = burstNanos;
        this.state = new AtomicReference<>(new State(nowNanos, ratePerSecond));
    }

    double rate() {
        return state.get().ratePerSecond();
    }

    long burstNanos() {
        return burstNanos;
    }

    /**
     * Reserves {@code units}. Returns the nanoseconds the request must wait from {@code nowNanos} (0 = go now), or
     * {@link #REFUSED} — taking nothing — when that wait would exceed {@code maxWaitNanos}.
     */
    long reserve(long units, long nowNanos, long maxWaitNanos) {
        State s, n;
        long wait;
        do {
            s = state.get();
            if (s.unlimited()) {
                return 0;
            }
            long tat = advance(s, units, nowNanos);
            wait = waitUntil(tat, nowNanos);
            if (wait > maxWaitNanos) {
                return REFUSED;
            }
            n = new State(tat, s.ratePerSecond());
        } while (!state.compareAndSet(s, n));
        return wait;
    }

    /** Charges {@code units} unconditionally (the part of a read found out after it ran): debt the next requests pay. */
    void charge(long units, long nowNanos) {
        if (units <= 0) {
            return;
        }
        State s, n;
        do {
            s = state.get();
            if (s.unlimited()) {
                return;
            }
            n = new State(advance(s, units, nowNanos), s.ratePerSecond());
        } while (!state.compareAndSet(s, n));
    }

    /** Nanoseconds a request of {@code units} would wait from {@code nowNanos} (0 = none); takes nothing. */
    long waitNanos(long units, long nowNanos) {
        State s = state.get();
        return s.unlimited() ? 0 : waitUntil(advance(s, units, nowNanos), nowNanos);
    }

    /** Units owed beyond now (0 when the tenant is within its rate). */
    double owedUnits(long nowNanos) {
        State s = state.get();
        return s.unlimited() ? 0 : Math.max(0, s.tatNanos() - nowNanos) / s.nanosPerUnit();
    }

    /** Sets a new rate from {@code nowNanos} on; units already owed are kept and re-spaced at the new rate. */
    void setRate(double ratePerSecond, long nowNanos) {
        State s, n;
        do {
            s = state.get();
            double owed = owedUnits(s, nowNanos);
            State fresh = new State(nowNanos, ratePerSecond);
            n = fresh.unlimited() ? fresh : new State(nowNanos + (long) (owed * fresh.nanosPerUnit()), ratePerSecond);
        } while (!state.compareAndSet(s, n));
    }

    private static double owedUnits(State s, long nowNanos) {
        return s.unlimited() ? 0 : Math.max(0, s.tatNanos() - nowNanos) / s.nanosPerUnit();
    }

    /** How long from {@code nowNanos} until {@code tat} is within the burst (saturating: the clock may be negative). */
    private long waitUntil(long tat, long nowNanos) {
        long ahead;
        try {
            ahead = Math.subtractExact(tat, nowNanos);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, ahead - burstNanos);
    }

    /** The {@code tat} after {@code units}; saturates at {@code Long.MAX_VALUE} (a huge request on a tiny quota). */
    private static long advance(State s, long units, long nowNanos) {
        long from = Math.max(s.tatNanos(), nowNanos);
        double cost = Math.ceil(units * s.nanosPerUnit());
        return cost >= (double) Long.MAX_VALUE - (double) from ? Long.MAX_VALUE : from + (long) cost;
    }
}
