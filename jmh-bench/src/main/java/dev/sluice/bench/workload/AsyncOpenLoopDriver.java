package dev.sluice.bench.workload;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Open loop with asynchronous dispatch — the server model: every arrival is handed to the store the moment it arrives,
 * through its async API, and nothing waits in this client. One generator thread releases the intended start times of
 * {@link Arrivals} (the same schedule as {@link OpenLoopDriver} for the same shape, arrivals and seed), draws the
 * operation and its keys and values, and submits it; a completion callback records {@code completion − intended start}
 * (so admission waits and stalls count: no coordinated omission), or a rejection, or a failure. Under overload the
 * requests therefore pile up <em>in the store</em> — in its admission gate, whose queue and wait bounds refuse the
 * excess with {@code OverloadedException}, and in its async queue ({@code async.queue.capacity}) — which is what an
 * overload test of the admission path needs. With synchronous workers the excess would queue in the client instead and
 * the gate would see only as many requests as there are workers.
 *
 * <p>The backlog reported each window is the number of requests <em>in flight</em>: submitted and not yet completed
 * (waiting for admission, queued for or running on the store's I/O threads). It is bounded by {@code maxInflight} only
 * as a last resort against unbounded client memory: an arrival that finds that many requests in flight is dropped and
 * counted in {@link #dropped()}, never silently. Since nothing ever waits in the client, {@link #unstartedAtStop()} is
 * always 0: at {@link #stop} the generator stops submitting, and requests in flight complete (or are refused) on their
 * own and are counted when they do; {@link #await} waits for the generator and then for them.
 *
 * <p>If the generator cannot keep up with the offered rate (one thread draws and submits every request), overdue
 * arrivals are submitted late with their original intended start, so the lag is part of their latency.
 *
 * <p>Thread-safety: {@link #start}, {@link #stop} and {@link #await} from one controlling thread; the counters from any.
 * The operation random is used by the generator thread only; callbacks run on whichever thread completes a request.
 */
public final class AsyncOpenLoopDriver implements LoadDriver {
    private final String name;
    private final Arrivals arrivals;
    private final long maxInflight;
    private final AsyncOpTask task;
    private final OpSink sink;
    private final LongSupplier clock;
    private final SplittableRandom ops;
    private final AtomicLong inflight = new AtomicLong();
    private final AtomicLong peakInflight = new AtomicLong();
    private final LongAdder generated = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private volatile boolean stopped;
    private Thread generator;

    /**
     * @param maxInflight most requests submitted and not completed; arrivals beyond it are dropped and counted
     * @param seed the arrival schedule uses it as {@link OpenLoopDriver} does; operations draw from a stream derived
     *     from it
     */
    public AsyncOpenLoopDriver(
            String name,
            LoadShape shape,
            boolean poisson,
            long maxInflight,
            AsyncOpTask task,
            OpSink sink,
            LongSupplier clock,
            long seed) {
        if (maxInflight < 1) {
            throw new IllegalArgumentException("maxInflight must be at least 1, got " + maxInflight);
        }
        this.name = name;
        this.arrivals = new Arrivals(shape, poisson, seed, clock);
        this.maxInflight = maxInflight;
        this.task = task;
        this.sink = sink;
        this.clock = clock;
        this.ops = new SplittableRandom(seed * 1_000_003L);
    }

    @Override
    public void start(long startNanos, long endNanos) {
        if (generator != null) {
            throw new IllegalStateException("driver " + name + " was started already");
        }
        generator = new Thread(
                () -> arrivals.run(startNanos, endNanos, () -> stopped, this::submit),
                "bench-" + name + "-async-arrivals");
        generator.setDaemon(true);
        generator.setPriority(Thread.MAX_PRIORITY);
        generator.start();
    }

    /** On the generator thread: one arrival. Only this thread increments {@code inflight}, so the bound holds. */
    private void submit(long intended) {
        generated.increment();
        if (inflight.get() >= maxInflight) {
            dropped.increment();
            return;
        }
        long inFlightNow = inflight.incrementAndGet();
        if (inFlightNow > peakInflight.get()) {
            peakInflight.accumulateAndGet(inFlightNow, Math::max);
        }
        OpKind kind = task.pick(ops);
        CompletableFuture<?> f;
        try {
            f = task.executeAsync(kind, ops);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((v, err) -> complete(kind, intended, err));
    }

    /** On whichever thread completed the request (the generator's when it failed at once). */
    private void complete(OpKind kind, long intended, Throwable err) {
        try {
            if (err == null) {
                sink.completed(kind, clock.getAsLong() - intended);
                return;
            }
            RuntimeException cause = cause(err);
            if (task.isRejection(cause)) {
                sink.rejected(kind);
            } else {
                sink.failed(kind, cause);
            }
        } finally {
            inflight.decrementAndGet();
        }
    }

    /** What the store failed the request with: CompletionExceptions unwrapped; a checked cause or Error wrapped. */
    static RuntimeException cause(Throwable err) {
        Throwable t = err;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof RuntimeException re ? re : new CompletionException(t);
    }

    @Override
    public void stop() {
        stopped = true;
    }

    /** Waits for the generator, then for the requests in flight to complete, within {@code millis} in total. */
    @Override
    public boolean await(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        if (generator != null && !LoadDriver.joinAll(List.of(generator), millis)) {
            return false;
        }
        while (inflight.get() > 0) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            Thread.sleep(Math.min(5, left));
        }
        return true;
    }

    /** Requests submitted and not yet completed. */
    @Override
    public long backlog() {
        return inflight.get();
    }

    /** The most requests in flight since the previous call. */
    @Override
    public long takeMaxBacklog() {
        long now = inflight.get();
        return Math.max(now, peakInflight.getAndSet(now));
    }

    @Override
    public long generated() {
        return generated.sum();
    }

    /** Arrivals dropped because {@code maxInflight} requests were in flight. */
    @Override
    public long dropped() {
        return dropped.sum();
    }

    /** Always 0: nothing waits in this client (requests in flight at the stop complete on their own). */
    @Override
    public long unstartedAtStop() {
        return 0;
    }
}
