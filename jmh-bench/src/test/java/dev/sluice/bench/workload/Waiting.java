package dev.sluice.bench.workload;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a generous deadline instead of sleeping a fixed time and hoping: on a busy CI machine a
 * driver's threads may run late, and a test should then wait longer, not fail.
 */
final class Waiting {
    /** Generous: the conditions waited for are due within a second on an idle machine. */
    static final long TIMEOUT_MILLIS = 20_000;

    private Waiting() {}

    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + TIMEOUT_MILLIS + " ms: " + what);
            }
            Thread.sleep(5);
        }
    }
}
