package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Closed-loop synthetic I/O for scheduler and device tests: {@code threads} threads issue I/Os of one class back to back
 * through {@link PriorityEnv#syntheticIo} until {@link #stop()}. Counts completed I/Os and their summed latency.
 */
final class SyntheticLoad implements AutoCloseable {
    final AtomicLong done = new AtomicLong();
    final AtomicLong latencyNanos = new AtomicLong();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;

    SyntheticLoad(PriorityEnv env, IoClass c, FaultRule.Op op, long bytes, int threads) {
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(
                    () -> {
                        try {
                            while (!stop) {
                                long ns = env.syntheticIo(c, op, bytes, false);
                                done.incrementAndGet();
                                latencyNanos.addAndGet(ns);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "synthetic-" + c + "-" + i);
            t.setDaemon(true);
            workers.add(t);
        }
    }

    SyntheticLoad start() {
        workers.forEach(Thread::start);
        return this;
    }

    void stop() throws InterruptedException {
        stop = true;
        for (Thread t : workers) {
            t.join(Duration.ofSeconds(30).toMillis());
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " is still blocked in the Env 30 s after stop()");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("synthetic load failed", failure.get());
        }
    }

    double meanLatencyNanos() {
        long n = done.get();
        return n == 0 ? 0 : (double) latencyNanos.get() / n;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /** Sleeps for {@code d} (the measurement window; nothing is asserted about how long it really took). */
    static void run(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }
}
