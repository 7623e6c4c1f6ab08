package dev.sluice.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Closed loop: {@code threads} clients, each issuing its next request as soon as the previous one returns (CruiseDB's
 * and ADOC's method). Latency runs from the actual start, which is the only start a closed-loop client has; a refused
 * request is retried after 1 ms so a rejecting store is not spun on.
 */
public final class ClosedLoopDriver implements LoadDriver {
    private final int threads;
    private final OpTask task;
    private final OpSink sink;
    private final LongSupplier clock;
    private final long seed;
    private final String name;
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean stopped;

    public ClosedLoopDriver(String name, int threads, OpTask task, OpSink sink, LongSupplier clock, long seed) {
        this.name = name;
        this.threads = threads;
        this.task = task;
        this.sink = sink;
        this.clock = clock;
        this.seed = seed;
    }

    @Override
    public void start(long startNanos, long endNanos) {
        for (int i = 0; i < threads; i++) {
            SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + i);
            Thread t = new Thread(() -> loop(rnd), "bench-" + name + "-client-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
    }

    private void loop(SplittableRandom rnd) {
        while (!stopped) {
            OpKind kind = task.pick(rnd);
            long start = clock.getAsLong();
            try {
                task.execute(kind, rnd);
                sink.completed(kind, clock.getAsLong() - start);
            } catch (RuntimeException e) {
                if (task.isRejection(e)) {
                    sink.rejected(kind);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                } else {
                    sink.failed(kind, e);
                }
            }
        }
    }

    @Override
    public void stop() {
        stopped = true;
    }

    @Override
    public boolean await(long millis) throws InterruptedException {
        return LoadDriver.joinAll(workers, millis);
    }

    @Override
    public long backlog() {
        return 0;
    }

    @Override
    public long takeMaxBacklog() {
        return 0;
    }

    @Override
    public long generated() {
        return 0;
    }

    @Override
    public long dropped() {
        return 0;
    }

    @Override
    public long unstartedAtStop() {
        return 0;
    }
}
