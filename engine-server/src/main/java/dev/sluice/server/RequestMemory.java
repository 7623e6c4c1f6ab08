package dev.sluice.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide budget for requests being received ({@code server.max.request.bytes.total}): the bytes every
 * connection holds of a request that has not arrived whole (its decoded arguments and what it sent that is not decoded
 * yet). {@code server.max.request.bytes} bounds one connection; this bounds them together. Thread-safe.
 */
final class RequestMemory {
    /** A connection holding no more than this is never refused for the budget (a PING, a small SET). */
    static final long FLOOR = 64 * 1024;

    static final RequestMemory UNBOUNDED = new RequestMemory(Long.MAX_VALUE);

    private final long budget;
    private final AtomicLong used = new AtomicLong();

    RequestMemory(long budget) {
        this.budget = budget;
    }

    /** Adds {@code delta} (negative to release); returns how far the total is over the budget now (≤ 0: within). */
    long change(long delta) {
        return (delta == 0 ? used.get() : used.addAndGet(delta)) - budget;
    }

    long used() {
        return used.get();
    }

    long budget() {
        return budget;
    }
}
