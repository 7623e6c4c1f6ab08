package dev.sluice.core;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A partition's share of the node's async pool ({@code async.partition.threads}): at most {@code limit} of the
 * partition's admitted async requests occupy pool threads at once; the rest wait in this partition's own queue (at
 * most {@code capacity} of them, then {@link RejectedExecutionException}, which the partition reports as an overload).
 *
 * <p>Why: the pool is shared by every partition (tenant). When one partition's requests block inside RocksDB — a
 * memtable switch or a write group waiting on a slow WAL write — an unlimited partition soon holds every pool thread,
 * and every other tenant's requests queue behind it: one tenant's flush becomes every tenant's latency spike (measured
 * on {@code flex-noisy-neighbour}, docs/benchmarks.md "Tenants and quotas"). With a limit, a blocked partition holds
 * at most {@code limit} threads and the others keep theirs.
 *
 * <p>A partition has two of these, one for its reads and scans and one for its writes, so its reads do not queue
 * behind its own writes blocked on a slow WAL write (a read needs no WAL and the device serves reads in their own queue):
 * it may hold up to {@code 2 × limit} threads, half of them for each.
 *
 * <p>{@code limit = 0} (the default) passes every request straight to the pool, as before. Thread-safety: any thread
 * may call {@link #execute}; a request leaves the queue in arrival order.
 */
final class PartitionAsyncSlots {
    private final ExecutorService pool;
    private final int limit;
    private final int capacity;
    private final ConcurrentLinkedQueue<RocksPartition.AsyncTask<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private final Function<RejectedExecutionException, Throwable> onPoolRejection;

    /**
     * @param onPoolRejection what a request fails with when the pool itself refuses it after it left this queue (the
     *     node shut the pool down, or the pool's own queue is full)
     */
    PartitionAsyncSlots(
            ExecutorService pool,
            int limit,
            int capacity,
            Function<RejectedExecutionException, Throwable> onPoolRejection) {
        this.pool = pool;
        this.limit = limit;
        this.capacity = capacity;
        this.onPoolRejection = onPoolRejection;
    }

    /** Runs {@code task} on the pool now or once one of this partition's slots is free. */
    void execute(RocksPartition.AsyncTask<?> task) {
        if (limit <= 0) {
            pool.execute(task);
            return;
        }
        if (queued.incrementAndGet() > capacity) {
            queued.decrementAndGet();
            throw new RejectedExecutionException("partition queue full");
        }
        queue.add(task);
        drain();
    }

    /**
     * Requests waiting in this partition's queue, including one being handed to the pool right now: zero means every
     * admitted request is on the pool (running, or in its queue) or has finished.
     */
    int waiting() {
        return queued.get();
    }

    /** Fails every request still waiting here (the node is closed and the pool stopped). */
    void failWaiting(Throwable t) {
        RocksPartition.AsyncTask<?> next;
        while ((next = queue.poll()) != null) {
            queued.decrementAndGet();
            next.fail(t);
        }
    }

    private void drain() {
        while (!queue.isEmpty()) {
            int n = running.get();
            if (n >= limit) {
                return; // a running request calls drain() when it finishes
            }
            if (!running.compareAndSet(n, n + 1)) {
                continue;
            }
            RocksPartition.AsyncTask<?> next = queue.poll();
            if (next == null) {
                running.decrementAndGet();
                continue;
            }
            next.afterRun(this::finished);
            try {
                pool.execute(next);
            } catch (RejectedExecutionException e) {
                running.decrementAndGet();
                next.fail(onPoolRejection.apply(e));
            } finally {
                // only now: the node's close waits for waiting() == 0 before it stops the pool, so a request must
                // count as waiting until the pool holds it, or the pool may stop between the two and refuse it
                queued.decrementAndGet();
            }
        }
    }

    private void finished() {
        running.decrementAndGet();
        drain();
    }
}
