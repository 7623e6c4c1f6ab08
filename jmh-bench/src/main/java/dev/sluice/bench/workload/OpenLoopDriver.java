package dev.sluice.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Open loop with synchronous dispatch, after vLSM §5 (Fig. 5): one generator thread computes each request's
 * <em>intended</em> start time from the phase's {@link LoadShape} ({@link Arrivals}: evenly spaced at the current rate,
 * or Poisson) and puts it in a queue when that time comes, whatever the store is doing; {@code workers} threads take
 * requests from the queue and run them synchronously. A request's latency is {@code completion − intended start}, so
 * time spent queued behind a stall counts: the generator never waits for the store, which is what avoids coordinated
 * omission.
 *
 * <p>The queue (the backlog of requests that arrived but have not started) is reported each window. It is bounded by
 * {@code maxBacklog}; an arrival that finds it full is dropped and counted — never silently. When the phase ends,
 * requests still queued are abandoned and counted as {@link #unstartedAtStop()}.
 *
 * <p>Under overload the requests wait in this client's queue, where the store's admission gate never sees them (it only
 * sees {@code workers} requests at a time); {@link AsyncOpenLoopDriver} hands every arrival to the store at once.
 *
 * <p>Thread-safety: {@link #start}, {@link #stop} and {@link #await} from one controlling thread; the counters from any.
 */
public final class OpenLoopDriver implements LoadDriver {
    private final String name;
    private final Arrivals arrivals;
    private final int workers;
    private final OpTask task;
    private final OpSink sink;
    private final LongSupplier clock;
    private final long seed;
    private final LinkedBlockingQueue<Long> queue;
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder generated = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder unstarted = new LongAdder();
    private final AtomicLong maxBacklog = new AtomicLong();
    private volatile boolean stopped;
    private volatile boolean generatorDone;

    public OpenLoopDriver(
            String name,
            LoadShape shape,
            boolean poisson,
            long maxBacklog,
            int workers,
            OpTask task,
            OpSink sink,
            LongSupplier clock,
            long seed) {
        this.name = name;
        this.arrivals = new Arrivals(shape, poisson, seed, clock);
        this.workers = workers;
        this.task = task;
        this.sink = sink;
        this.clock = clock;
        this.seed = seed;
        this.queue = new LinkedBlockingQueue<>((int) Math.min(Integer.MAX_VALUE, Math.max(1, maxBacklog)));
    }

    @Override
    public void start(long startNanos, long endNanos) {
        Thread gen = new Thread(() -> generate(startNanos, endNanos), "bench-" + name + "-arrivals");
        gen.setDaemon(true);
        gen.setPriority(Thread.MAX_PRIORITY);
        threads.add(gen);
        for (int i = 0; i < workers; i++) {
            SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + i);
            Thread t = new Thread(() -> work(rnd), "bench-" + name + "-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
    }

    private void generate(long startNanos, long endNanos) {
        try {
            arrivals.run(startNanos, endNanos, () -> stopped, this::arrive);
        } finally {
            generatorDone = true;
        }
    }

    private void arrive(long intended) {
        generated.increment();
        if (queue.offer(intended)) {
            long size = queue.size();
            if (size > maxBacklog.get()) {
                maxBacklog.accumulateAndGet(size, Math::max);
            }
        } else {
            dropped.increment();
        }
    }

    private void work(SplittableRandom rnd) {
        while (true) {
            Long intended;
            try {
                intended = queue.poll(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (intended == null) {
                if (stopped || (generatorDone && queue.isEmpty())) {
                    return;
                }
                continue;
            }
            if (stopped) {
                unstarted.increment();
                return;
            }
            OpKind kind = task.pick(rnd);
            try {
                task.execute(kind, rnd);
                sink.completed(kind, clock.getAsLong() - intended);
            } catch (RuntimeException e) {
                if (task.isRejection(e)) {
                    sink.rejected(kind);
                } else {
                    sink.failed(kind, e);
                }
            }
        }
    }

    @Override
    public void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        List<Long> left = new ArrayList<>();
        queue.drainTo(left);
        unstarted.add(left.size());
    }

    @Override
    public boolean await(long millis) throws InterruptedException {
        return LoadDriver.joinAll(threads, millis);
    }

    @Override
    public long backlog() {
        return queue.size();
    }

    @Override
    public long takeMaxBacklog() {
        long now = queue.size();
        return Math.max(now, maxBacklog.getAndSet(now));
    }

    @Override
    public long generated() {
        return generated.sum();
    }

    @Override
    public long dropped() {
        return dropped.sum();
    }

    @Override
    public long unstartedAtStop() {
        return unstarted.sum();
    }
}
