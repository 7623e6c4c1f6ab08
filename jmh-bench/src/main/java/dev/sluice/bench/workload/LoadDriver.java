package dev.sluice.bench.workload;

/** Runs one phase's load. {@link #start} returns at once; {@link #stop} signals the end; {@link #await} joins. */
public interface LoadDriver {
    /** Begins issuing requests; the phase's time runs from {@code startNanos} (same clock as the driver's). */
    void start(long startNanos, long endNanos);

    /** Stops issuing new requests; requests already running finish on their own. Idempotent. */
    void stop();

    /**
     * Waits up to {@code millis} for every thread of the driver to finish (and, with async dispatch, for the requests in
     * flight to complete); true when they did.
     */
    boolean await(long millis) throws InterruptedException;

    /**
     * Open loop: requests that arrived and have not started yet (the backlog; with async dispatch, the requests in flight:
     * submitted and not completed); 0 for closed loop.
     */
    long backlog();

    /** Open loop: the largest backlog since the previous call (then resets); 0 for closed loop. */
    long takeMaxBacklog();

    /** Open loop: requests generated so far; 0 for closed loop. */
    long generated();

    /** Open loop: arrivals dropped because the backlog (async: the requests in flight) was at its bound. */
    long dropped();

    /** Open loop: requests still waiting when {@link #stop} was called (never started, not in any latency). */
    long unstartedAtStop();

    /** Joins every thread within {@code millis} in total; false if one is still alive then. */
    static boolean joinAll(Iterable<Thread> threads, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        for (Thread t : threads) {
            t.join(Math.max(1, deadline - System.currentTimeMillis()));
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }
}
