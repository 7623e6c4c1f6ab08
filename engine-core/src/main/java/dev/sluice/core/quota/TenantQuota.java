package dev.sluice.core.quota;

import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.SluiceException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One partition's quota enforcement: a read bucket (RCU/s) for gets, multiGets and scans and a write bucket (WCU/s) for
 * puts, deletes and batches ({@link QuotaBucket}), the over-quota policy and the meters. The request path calls {@link
 * #acquire} (or {@link #acquireAsync}) with the units it knows before it runs, and {@link #charge} with the units it
 * found out while running (a read's bytes returned beyond the first 4 KiB; a scan's bytes).
 *
 * <p>Throttling waits for the reservation: the synchronous path parks the caller, the async path completes its future
 * on a timer without holding a thread. A wait longer than {@code quota.max.wait.ms} — or any wait when the policy is
 * {@code refuse} — is refused with {@link QuotaExceededException}, taking nothing. A throttled caller interrupted while
 * it waits is not admitted (it gets a {@link SluiceException} caused by the {@link InterruptedException}, flag set
 * again); its units stay charged.
 *
 * <p>Thread-safety: every method may be called from any thread; {@link #set} swaps the quota atomically for new
 * requests (requests already waiting keep their reservation).
 */
public final class TenantQuota {
    /** How a throttled request waits: real time in production, a fake clock's steps in tests. */
    public interface Waiter {
        void sleep(long nanos) throws InterruptedException;

        /** An executor that runs its task {@code nanos} from now, without blocking the caller. */
        Executor after(long nanos);

        Waiter SYSTEM = new Waiter() {
            @Override
            public void sleep(long nanos) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }

            @Override
            public Executor after(long nanos) {
                return CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS, Runnable::run);
            }
        };
    }

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** A synchronous wait sleeps in slices of at most this, so that {@link #close} ends it within one slice. */
    static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private volatile boolean closed;
    /** Async waits not yet over; {@link #close} fails them. */
    private final java.util.Set<CompletableFuture<Void>> waiting = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final String partition;
    private final LongSupplier nanoClock;
    private final Waiter waiter;
    private volatile Config config;

    private final LongAdder readUnits = new LongAdder();
    private final LongAdder writeUnits = new LongAdder();
    private final LongAdder throttled = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();

    private record Config(PartitionQuota quota, QuotaBucket reads, QuotaBucket writes) {}

    public TenantQuota(String partition, PartitionQuota quota, LongSupplier nanoClock, Waiter waiter) {
        this.partition = partition;
        this.nanoClock = nanoClock;
        this.waiter = waiter;
        long now = nanoClock.getAsLong();
        this.config = new Config(
                quota,
                new QuotaBucket(quota.rcu(), quota.burst().toNanos(), now),
                new QuotaBucket(quota.wcu(), quota.burst().toNanos(), now));
    }

    public PartitionQuota quota() {
        return config.quota();
    }

    /**
     * Changes the quota from now on. Units already owed are kept and paid at the new rates; a new burst starts the
     * buckets afresh.
     */
    public synchronized void set(PartitionQuota q) {
        if (q == null) {
            throw new IllegalArgumentException("quota must not be null (use PartitionQuota.UNLIMITED)");
        }
        long now = nanoClock.getAsLong();
        Config c = config;
        if (!q.burst().equals(c.quota().burst())) {
            config = new Config(
                    q,
                    new QuotaBucket(q.rcu(), q.burst().toNanos(), now),
                    new QuotaBucket(q.wcu(), q.burst().toNanos(), now));
            return;
        }
        c.reads().setRate(q.rcu(), now);
        c.writes().setRate(q.wcu(), now);
        config = new Config(q, c.reads(), c.writes());
    }

    /** Waits until {@code units} of {@code kind}'s quota are free, or throws {@link QuotaExceededException}. */
    public void acquire(RequestKind kind, long units) {
        if (units <= 0) {
            return;
        }
        checkOpen();
        long wait = reserve(kind, units);
        try {
            while (wait > 0) {
                long slice = Math.min(wait, SLICE_NANOS);
                waiter.sleep(slice);
                wait -= slice;
                checkOpen();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException(
                    "partition '" + partition + "': interrupted while waiting for its " + unit(kind) + " quota", e);
        }
    }

    /**
     * Ends every wait at once: synchronous waiters throw {@link IllegalStateException} within {@link #SLICE_NANOS},
     * asynchronous ones complete exceptionally with it; later requests fail the same way. Until 2026-11-26 a node's
     * close left them waiting for their whole reservation (up to {@code quota.max.wait.ms}).
     */
    public void close() {
        closed = true;
        for (CompletableFuture<Void> f : List.copyOf(waiting)) {
            f.completeExceptionally(closedError());
        }
        waiting.clear();
    }

    private void checkOpen() {
        if (closed) {
            throw closedError();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException(
                "partition '" + partition + "' is closed (it closed while the request waited" + " for its quota)");
    }

    /** Completes when {@code units} are free (never blocks the caller), or exceptionally with QuotaExceededException. */
    public CompletableFuture<Void> acquireAsync(RequestKind kind, long units) {
        if (units <= 0) {
            return DONE;
        }
        long wait;
        try {
            checkOpen();
            wait = reserve(kind, units);
        } catch (QuotaExceededException | IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (wait == 0) {
            return DONE;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        waiting.add(f);
        if (closed) { // close() ran between the check and the add: it may have missed f
            waiting.remove(f);
            return CompletableFuture.failedFuture(closedError());
        }
        waiter.after(wait).execute(() -> {
            waiting.remove(f);
            f.complete(null);
        });
        return f;
    }

    /** Charges units found out after the request ran (no wait now: the tenant's next requests pay for them). */
    public void charge(RequestKind kind, long units) {
        if (units <= 0) {
            return;
        }
        bucket(kind).charge(units, nanoClock.getAsLong());
        served(kind).add(units);
    }

    public QuotaStats stats() {
        return new QuotaStats(readUnits.sum(), writeUnits.sum(), throttled.sum(), refused.sum(), waitNanos.sum());
    }

    private long reserve(RequestKind kind, long units) {
        Config c = config;
        PartitionQuota q = c.quota();
        long maxWait = q.overQuota() == PartitionQuota.OverQuota.REFUSE
                ? 0
                : q.maxWait().toNanos();
        QuotaBucket b = kind == RequestKind.WRITE ? c.writes() : c.reads();
        long now = nanoClock.getAsLong();
        long wait = b.reserve(units, now, maxWait);
        if (wait == QuotaBucket.REFUSED) {
            refused.increment();
            throw new QuotaExceededException(refusal(kind, units, q, b, now));
        }
        served(kind).add(units);
        if (wait > 0) {
            throttled.increment();
            waitNanos.add(wait);
        }
        return wait;
    }

    private String refusal(RequestKind kind, long units, PartitionQuota q, QuotaBucket b, long now) {
        String unit = unit(kind);
        String head = "partition '" + partition + "' is over its quota of "
                + dev.sluice.core.config.Option.number(b.rate()) + " " + unit + "/s (a request of " + units + " "
                + unit + (units == 1 ? "" : "s") + "; ";
        if (q.overQuota() == PartitionQuota.OverQuota.REFUSE) {
            double largest = q.largestRequest(b.rate());
            return head + "partition." + partition + ".over.quota = refuse"
                    + (units > largest
                            ? "; no request above " + (long) Math.floor(largest) + " " + unit
                                    + "s, the quota's burst, can pass: split it or raise the quota"
                            : "")
                    + ")";
        }
        double largest = q.largestRequest(b.rate());
        if (units > largest) {
            return head + "no request above " + (long) Math.floor(largest) + " " + unit + "s (the quota's burst plus"
                    + " partition." + partition + ".quota.max.wait.ms = "
                    + q.maxWait().toMillis()
                    + " at its rate) can pass: split it, or raise the quota or its wait)";
        }
        long waitMs = Math.round(b.waitNanos(units, now) / 1e6);
        return head + "it would wait " + waitMs + " ms > partition." + partition + ".quota.max.wait.ms = "
                + q.maxWait().toMillis() + ")";
    }

    private QuotaBucket bucket(RequestKind kind) {
        Config c = config;
        return kind == RequestKind.WRITE ? c.writes() : c.reads();
    }

    private LongAdder served(RequestKind kind) {
        return kind == RequestKind.WRITE ? writeUnits : readUnits;
    }

    private static String unit(RequestKind kind) {
        return kind == RequestKind.WRITE ? "WCU" : "RCU";
    }
}
