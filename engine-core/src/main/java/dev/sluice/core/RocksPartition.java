package dev.sluice.core;

import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.quota.QuotaStats;
import dev.sluice.core.quota.TenantQuota;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.ReadCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.rocksdb.ConcurrentTaskLimiterImpl;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.LoggerFactory;

/**
 * A partition backed by one RocksDB instance (default column family only) with its own WAL.
 *
 * <p><b>Locking.</b> Every request holds the read side of {@code lifecycle} while it touches the DB; {@link #close()}
 * takes the write side, so the DB is never closed under a running request (that would be a native use-after-free).
 * Admission happens before the lock is taken, so a request waiting for a token never delays close. Open scan iterators
 * are tracked and closed before the DB.
 *
 * <p><b>Close order</b> (RocksDB requires it): iterators → DB → options (with its statistics, listener, limiter) →
 * the node closes the shared cache and Env after every partition.
 *
 * <p><b>Background errors.</b> When RocksDB reports one (a failed flush, compaction or WAL write) it may stop writes;
 * {@link #health()} says so (a no-op probe write, see {@link #writesStopped}), and writes then fail at once with a
 * {@link SluiceException} before taking an admission token. {@link #resume()} reopens the DB (rocksdbjni 9.10 has no
 * {@code DB::Resume}); the reopen replays the WAL, so every acknowledged write is kept.
 */
final class RocksPartition implements Partition {
    private final String name;
    private final Path dir;
    /** Replaced only by {@link #resume()}, under the lifecycle write lock; null while a failed reopen left it closed. */
    private volatile RocksDB db;
    /** Why the DB is not open after a failed {@link #resume()}; null otherwise. */
    private volatile String unavailable;

    private final Options options;
    private final Statistics statistics;
    private final PartitionListener listener;
    private final ConcurrentTaskLimiterImpl compactionLimiter;
    private final SluiceConfig config;
    private final ExecutorService asyncPool;
    /**
     * This partition's share of {@link #asyncPool} ({@code async.partition.threads}): its reads and scans, and separately
     * its writes, each get that many slots.
     */
    private final PartitionAsyncSlots asyncReadSlots;

    private final PartitionAsyncSlots asyncWriteSlots;

    private final Supplier<LsmSnapshot> snapshotSupplier;
    private volatile AdmissionGate gate = AdmissionGate.OPEN;
    /** Read cache hook (see {@link ReadCache} for the coherence protocol); null when none is installed. */
    private volatile ReadCache readCache;
    /** The tenant's RCU/WCU quota (checked before the admission gate); replaced once by the node at open. */
    private volatile TenantQuota quota;
    /** Current max_background_jobs (RocksDB offers no getter for mutable DB options). */
    volatile int maxBackgroundJobs;
    /** Current max_subcompactions (as above: no getter). */
    volatile int maxSubcompactions;

    private final WriteOptions syncWrite = new WriteOptions().setSync(true);
    private final WriteOptions asyncWrite = new WriteOptions().setSync(false);
    private final ReadOptions readOptions = new ReadOptions();
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Set<Scan> openScans = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile boolean closing;

    // Cumulative user-op counters for the sensors.
    final LongAdder gets = new LongAdder();
    final LongAdder puts = new LongAdder();
    final LongAdder deletes = new LongAdder();
    final LongAdder scans = new LongAdder();
    final LongAdder scannedEntries = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder rejected = new LongAdder();

    private final Timer getTimer, multiGetTimer, putTimer, deleteTimer, batchTimer, scanTimer;
    private final Counter rejectedCounter;
    private final List<io.micrometer.core.instrument.Meter> quotaMeters;

    RocksPartition(
            String name,
            Path dir,
            RocksDB db,
            Options options,
            Statistics statistics,
            PartitionListener listener,
            ConcurrentTaskLimiterImpl compactionLimiter,
            SluiceConfig config,
            ExecutorService asyncPool,
            MeterRegistry registry,
            Supplier<LsmSnapshot> snapshotSupplier) {
        this.name = name;
        this.dir = dir;
        this.db = db;
        this.options = options;
        this.statistics = statistics;
        this.listener = listener;
        this.compactionLimiter = compactionLimiter;
        this.config = config;
        this.asyncPool = asyncPool;
        this.asyncReadSlots = new PartitionAsyncSlots(
                asyncPool, config.asyncPartitionThreads(), config.asyncQueueCapacity(), this::poolRejected);
        this.asyncWriteSlots = new PartitionAsyncSlots(
                asyncPool, config.asyncPartitionThreads(), config.asyncQueueCapacity(), this::poolRejected);
        this.snapshotSupplier = snapshotSupplier;
        this.maxBackgroundJobs = options.maxBackgroundJobs();
        this.maxSubcompactions = options.maxSubcompactions();
        this.quota = new TenantQuota(name, config.quota(name), System::nanoTime, TenantQuota.Waiter.SYSTEM);
        this.getTimer = timer(registry, "get");
        this.multiGetTimer = timer(registry, "multiget");
        this.putTimer = timer(registry, "put");
        this.deleteTimer = timer(registry, "delete");
        this.batchTimer = timer(registry, "batch");
        this.scanTimer = timer(registry, "scan");
        this.rejectedCounter = Counter.builder("sluice.requests.rejected")
                .description("Requests refused by admission (overload or quota)")
                .tag("partition", name)
                .register(registry);
        this.quotaMeters = List.of(
                // one description for both series: Prometheus shows one HELP line per name (the first one registered)
                quotaMeter(registry, "sluice.quota.units", "rcu", QUOTA_UNITS_HELP, q -> q.readUnits()),
                quotaMeter(registry, "sluice.quota.units", "wcu", QUOTA_UNITS_HELP, q -> q.writeUnits()),
                quotaMeter(
                        registry,
                        "sluice.quota.throttled",
                        null,
                        "Requests that waited for their quota",
                        q -> q.throttled()),
                quotaMeter(registry, "sluice.quota.refused", null, "Requests refused over quota", q -> q.refused()));
    }

    private static final String QUOTA_UNITS_HELP = "Capacity units charged (at the quota, before admission: a request"
            + " admission then refuses is charged too): unit=rcu read capacity units, unit=wcu write capacity units";

    /** A counter over this partition's quota meters (read through the current quota, which the node installs once). */
    private io.micrometer.core.instrument.Meter quotaMeter(
            MeterRegistry registry,
            String meter,
            String unit,
            String description,
            java.util.function.ToLongFunction<QuotaStats> f) {
        io.micrometer.core.instrument.FunctionCounter.Builder<RocksPartition> b =
                io.micrometer.core.instrument.FunctionCounter.builder(meter, this, p -> f.applyAsLong(p.quota.stats()))
                        .description(description)
                        .tag("partition", name);
        if (unit != null) {
            b = b.tag("unit", unit);
        }
        return b.register(registry);
    }

    /** The meters this partition registered (removed from the registry when the node closes). */
    List<io.micrometer.core.instrument.Meter> meters() {
        List<io.micrometer.core.instrument.Meter> m = new ArrayList<>(
                List.of(getTimer, multiGetTimer, putTimer, deleteTimer, batchTimer, scanTimer, rejectedCounter));
        m.addAll(quotaMeters);
        return m;
    }

    private Timer timer(MeterRegistry registry, String op) {
        return Timer.builder("sluice.requests")
                .description("User requests served, by operation (latency includes admission wait)")
                .tag("partition", name)
                .tag("op", op)
                .register(registry);
    }

    @Override
    public String name() {
        return name;
    }

    Path dir() {
        return dir;
    }

    /** The open DB; call between {@link #enter()} and {@link #exit()} ({@link #resume()} may replace it otherwise). */
    RocksDB db() {
        return db;
    }

    Options options() {
        return options;
    }

    Statistics statistics() {
        return statistics;
    }

    PartitionListener listener() {
        return listener;
    }

    ConcurrentTaskLimiterImpl compactionLimiter() {
        return compactionLimiter;
    }

    AdmissionGate gate() {
        return gate;
    }

    void installGate(AdmissionGate g) {
        if (gate != AdmissionGate.OPEN) {
            throw new IllegalStateException("partition '" + name + "' already has an admission gate");
        }
        gate = g;
    }

    void installReadCache(ReadCache c) {
        synchronized (this) {
            if (readCache != null) {
                throw new IllegalStateException("partition '" + name + "' already has a read cache");
            }
            c.bind(new CacheSource(this));
            readCache = c;
        }
    }

    /** Invalidates written keys in the read cache, if any (after the engine applied the write, before it returns). */
    private void invalidate(byte[] key) {
        ReadCache c = readCache;
        if (c != null) {
            c.invalidate(key);
        }
    }

    /** Uses {@code q} (built on the node's clock) for the partition's quota from now on. */
    void installQuota(TenantQuota q) {
        quota = q;
    }

    @Override
    public PartitionQuota quota() {
        return quota.quota();
    }

    @Override
    public void setQuota(PartitionQuota q) {
        checkOpen();
        quota.set(q);
    }

    @Override
    public QuotaStats quotaStats() {
        return quota.stats();
    }

    OpCounters counters() {
        return new OpCounters(
                gets.sum(),
                puts.sum(),
                deletes.sum(),
                scans.sum(),
                scannedEntries.sum(),
                bytesWritten.sum(),
                bytesRead.sum(),
                rejected.sum());
    }

    // ---- quota (a separate step before admission; see dev.sluice.core.quota) ----

    /** Takes {@code units} of the tenant's quota before the request runs (once: not again on an async task's thread). */
    private void takeQuota(RequestKind kind, long units) {
        if (ASYNC.get().admitted) {
            return;
        }
        try {
            quota.acquire(kind, units);
        } catch (QuotaExceededException e) {
            if (closed || closing) {
                throw closedWhileWaiting(e);
            }
            rejected.increment();
            rejectedCounter.increment();
            throw e;
        }
    }

    /** Charges the units a read found out while running beyond the {@code prepaid} ones (its next requests pay). */
    private void chargeReadQuota(long bytesReturned, long prepaid) {
        quota.charge(RequestKind.READ, PartitionQuota.readUnits(bytesReturned) - prepaid);
    }

    // ---- admission ----

    private void admit(RequestKind kind, long bytes) {
        admit(kind, bytes, 1);
    }

    /** Admission of a request that carries {@code operations} key operations: charged as that many (batch, multiGet). */
    private void admit(RequestKind kind, long bytes, int operations) {
        if (ASYNC.get().admitted) {
            return;
        }
        try {
            gate.acquire(kind, bytes, operations);
        } catch (OverloadedException | QuotaExceededException e) {
            if (closed || closing) {
                throw closedWhileWaiting(e);
            }
            rejected.increment();
            rejectedCounter.increment();
            throw e;
        }
    }

    /**
     * Runs {@code op} on the async pool once the partition's quota ({@code units} RCUs/WCUs) and then the admission gate
     * ({@code operations} requests of {@code bytes} in all) admit it; neither wait blocks the caller's thread.
     */
    private <T> CompletableFuture<T> async(RequestKind kind, long bytes, int operations, long units, Supplier<T> op) {
        checkOpen();
        CompletableFuture<T> result = new CompletableFuture<>();
        quota.acquireAsync(kind, units)
                .thenCompose(q -> gate.acquireAsync(kind, bytes, operations))
                .whenComplete((ok, err) -> {
                    if (err != null) {
                        Throwable cause = unwrap(err);
                        if ((closed || closing)
                                && (cause instanceof OverloadedException || cause instanceof QuotaExceededException)) {
                            result.completeExceptionally(closedWhileWaiting(cause));
                            return;
                        }
                        rejected.increment();
                        rejectedCounter.increment();
                        result.completeExceptionally(cause);
                        return;
                    }
                    try {
                        (kind == RequestKind.WRITE ? asyncWriteSlots : asyncReadSlots)
                                .execute(new AsyncTask<>(result, op));
                    } catch (RejectedExecutionException e) {
                        result.completeExceptionally(poolRejected(e));
                    }
                });
        return result;
    }

    /**
     * What a request waiting for admission or its quota fails with when the partition closes meanwhile: the gate and the
     * quota fail their waiters at close ("admission gate closed"), and that is the node's "closed", not the "back off
     * and retry" OverloadedException means (lifecycle probe, 2026-11-28); not counted as a rejection.
     */
    private IllegalStateException closedWhileWaiting(Throwable cause) {
        return new IllegalStateException(
                "partition '" + name + "' is closed (it closed while this request waited for admission)", cause);
    }

    /**
     * What an admitted request fails with when it cannot be queued: the partition or node is closing, or the queue
     * it joins (the pool's, or this partition's own with {@code async.partition.threads}) is full — counted as a
     * rejection.
     */
    private Throwable poolRejected(RejectedExecutionException e) {
        if (closed || closing || asyncPool.isShutdown()) {
            return new IllegalStateException("partition '" + name + "' is closed");
        }
        rejected.increment();
        rejectedCounter.increment();
        return new OverloadedException("partition '" + name + "': async queue full (async.queue.capacity = "
                + config.asyncQueueCapacity() + ")");
    }

    /** Requests waiting in this partition's own async queue ({@code async.partition.threads} busy). */
    int asyncWaiting() {
        return asyncReadSlots.waiting() + asyncWriteSlots.waiting();
    }

    /** At close, after the pool stopped: fails the requests still waiting in this partition's own queue. */
    void failAsyncWaiting(Throwable t) {
        asyncReadSlots.failWaiting(t);
        asyncWriteSlots.failWaiting(t);
    }

    /**
     * An admitted async request. The node fails tasks still queued when it has to stop waiting for them at close, so no
     * future is left pending forever.
     */
    static final class AsyncTask<T> implements Runnable {
        private final CompletableFuture<T> result;
        private final Supplier<T> op;
        /** Frees the partition's slot ({@link PartitionAsyncSlots}) once the request ran; null without a limit. */
        private volatile Runnable after;

        AsyncTask(CompletableFuture<T> result, Supplier<T> op) {
            this.result = result;
            this.op = op;
        }

        void afterRun(Runnable r) {
            after = r;
        }

        /**
         * Runs the request, frees its slot, then completes its future. The future's dependent callbacks run inline in
         * complete(): completed while the slot was held, a callback that waited for another request of the same
         * partition (async.partition.threads = 1) waited for the slot it held itself, forever (API probe, 2026-11-28).
         */
        @Override
        public void run() {
            T value = null;
            Throwable failure = null;
            try {
                value = op.get();
            } catch (Throwable t) {
                failure = t;
            } finally {
                Runnable a = after;
                if (a != null) {
                    a.run();
                }
            }
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        }

        void fail(Throwable t) {
            result.completeExceptionally(t);
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    // ---- lifecycle guard ----

    /** Set by the node when it starts closing: new requests are refused before any resource goes away. */
    void markClosing() {
        closing = true;
    }

    /**
     * Refuses requests once the node started closing, except admitted async requests (on the pool thread, {@link
     * #ASYNC}): the node lets those finish before it closes the partition.
     */
    private void checkOpen() {
        if (closed || closing && !ASYNC.get().admitted) {
            throw new IllegalStateException("partition '" + name + "' is closed");
        }
    }

    /**
     * Takes the lifecycle read lock; throws if the partition is closed, or unavailable after a failed {@link
     * #resume()}. Pair with {@link #exit()}.
     */
    void enter() {
        lifecycle.readLock().lock();
        if (closed) {
            lifecycle.readLock().unlock();
            throw new IllegalStateException("partition '" + name + "' is closed");
        }
        String why = unavailable;
        if (why != null) {
            lifecycle.readLock().unlock();
            throw new SluiceException("partition '" + name + "' is unavailable: resume() could not reopen it (" + why
                    + "); fix the cause and call resume() again");
        }
    }

    void exit() {
        lifecycle.readLock().unlock();
    }

    private SluiceException fail(String what, RocksDBException e) {
        return fail(what, e, false);
    }

    /**
     * {@code write}: a put, delete or batch that RocksDB failed. Its outcome is unknown, and the message says so: with a
     * failed WAL sync RocksDB has already appended the record, and though the memtable does not get it (reads keep the
     * old value), replaying the WAL at {@link #resume()} or the next open applies it (found by a fault-injection probe,
     * 2026-11-28: the failed put's value came back after resume in every WAL-sync fault run). Writes refused because
     * writes are stopped never reach RocksDB and are not unknown.
     */
    private SluiceException fail(String what, RocksDBException e, boolean write) {
        suspect = true; // the next write checks health() first
        PartitionListener.BackgroundError bg = listener.backgroundError();
        return new SluiceException(
                "partition '" + name + "': " + what + " failed: " + describe(e)
                        + (write
                                ? "; its outcome is unknown: RocksDB may have logged it before the error, and a logged"
                                        + " write takes effect when its WAL is replayed (at resume() or the next open)"
                                : "")
                        + (bg == null
                                ? ""
                                : " (background error " + bg.text() + "; see Partition.health(), and call"
                                        + " Partition.resume() once the cause is fixed)"),
                e);
    }

    static String describe(RocksDBException e) {
        return e.getStatus() != null
                ? e.getStatus().getCode() + (e.getMessage() == null ? "" : " — " + e.getMessage())
                : String.valueOf(e.getMessage());
    }

    /**
     * A SYNC write: the batch carries {@link WalCheck#SYNC_MARK} as WAL-only log data, so the open-time WAL check can
     * tell an acknowledged SYNC write after a bad record (damage: refused) from a power cut's lost ASYNC tail.
     */
    private void writeSynced(WriteBatch wb) throws RocksDBException {
        wb.putLogData(WalCheck.SYNC_MARK);
        db.write(syncWrite, wb);
    }

    private WriteOptions writeOptions(WriteMode mode) {
        return switch (mode) {
            case SYNC -> syncWrite;
            case ASYNC -> asyncWrite;
            case DEFAULT -> config.syncWrites() ? syncWrite : asyncWrite;
        };
    }

    // ---- synchronous API ----

    @Override
    public byte[] get(byte[] key) {
        Limits.checkKey(key, config.maxKeyBytes());
        checkOpen();
        long start = requestStart();
        takeQuota(RequestKind.READ, 1);
        admit(RequestKind.READ, key.length);
        enter();
        try {
            ReadCache c = readCache;
            byte[] v;
            if (c == null) {
                v = db.get(readOptions, key);
            } else {
                ReadCache.Cached hit = c.lookup(key);
                if (hit != null) {
                    v = hit.value();
                } else {
                    long stamp = c.stamp();
                    v = db.get(readOptions, key);
                    c.fill(key, v, stamp);
                }
            }
            gets.increment();
            bytesRead.add(key.length + (v == null ? 0 : v.length));
            chargeReadQuota(key.length + (v == null ? 0 : v.length), 1);
            return v;
        } catch (RocksDBException e) {
            throw fail("get", e);
        } finally {
            exit();
            getTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public List<byte[]> multiGet(List<byte[]> keys) {
        Limits.requireNonNull(keys, "keys");
        long bytes = 0;
        for (byte[] k : keys) {
            Limits.checkKey(k, config.maxKeyBytes());
            bytes += k.length;
        }
        checkOpen();
        if (keys.isEmpty()) {
            return new ArrayList<>(); // mutable, as a non-empty result is
        }
        long start = requestStart();
        takeQuota(RequestKind.READ, 1);
        admit(RequestKind.READ, bytes, keys.size());
        enter();
        try {
            ReadCache c = readCache;
            List<byte[]> values = c == null ? multiGetChecked(keys) : cachedMultiGet(c, keys);
            long read = bytes;
            for (byte[] v : values) {
                read += v == null ? 0 : v.length;
            }
            gets.add(keys.size());
            bytesRead.add(read);
            chargeReadQuota(read, 1);
            return values;
        } catch (RocksDBException e) {
            throw fail("multiGet", e);
        } finally {
            exit();
            multiGetTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /**
     * RocksDB's {@code multiGetAsList} answers null both for a key that is not there and for a key it could not read (a
     * block checksum mismatch, an I/O error): rocksdbjni drops the per-key status. So every null is confirmed with
     * {@code get} on the same snapshot, which throws on such an error; without this, a corrupted block made multiGet
     * (and the server's MGET, EXISTS and DEL) report stored keys as missing. When the confirming get finds a value, the
     * null was a read error that did not repeat (a transient I/O error): the value is returned. Until 2026-11-28 the
     * get's value was dropped and the null kept, so one transient read error answered "absent" for a stored key, and
     * the Calcspar cache kept serving that answer after the error was gone (fault-injection probe). Both reads see one
     * snapshot, so the result stays one view of the store.
     */
    private List<byte[]> multiGetChecked(List<byte[]> keys) throws RocksDBException {
        org.rocksdb.Snapshot snapshot = db.getSnapshot();
        try (ReadOptions at = new ReadOptions(readOptions).setSnapshot(snapshot)) {
            List<byte[]> values = new ArrayList<>(db.multiGetAsList(at, keys));
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) == null) {
                    // throws RocksDBException (Corruption, IOError) instead of a null; a value: a transient error
                    values.set(i, db.get(at, keys.get(i)));
                }
            }
            return values;
        } finally {
            db.releaseSnapshot(snapshot);
        }
    }

    private List<byte[]> cachedMultiGet(ReadCache c, List<byte[]> keys) throws RocksDBException {
        List<byte[]> values = new ArrayList<>(keys.size());
        List<byte[]> missed = new ArrayList<>();
        List<Integer> missedAt = new ArrayList<>();
        for (byte[] k : keys) {
            ReadCache.Cached hit = c.lookup(k);
            if (hit == null) {
                missed.add(k);
                missedAt.add(values.size());
            }
            values.add(hit == null ? null : hit.value());
        }
        if (!missed.isEmpty()) {
            long stamp = c.stamp();
            List<byte[]> read = multiGetChecked(missed);
            for (int i = 0; i < read.size(); i++) {
                values.set(missedAt.get(i), read.get(i));
                c.fill(missed.get(i), read.get(i), stamp);
            }
        }
        return values;
    }

    @Override
    public void put(byte[] key, byte[] value, WriteMode mode) {
        Limits.checkKey(key, config.maxKeyBytes());
        Limits.checkValue(value, config.maxValueBytes());
        Limits.requireNonNull(mode, "mode");
        checkOpen();
        checkWritable("put");
        long start = requestStart();
        takeQuota(RequestKind.WRITE, PartitionQuota.writeUnits(key.length + value.length));
        admit(RequestKind.WRITE, key.length + value.length);
        enter();
        try {
            WriteOptions wo = writeOptions(mode);
            if (wo == syncWrite) {
                try (WriteBatch wb = new WriteBatch()) {
                    wb.put(key, value);
                    writeSynced(wb);
                }
            } else {
                db.put(wo, key, value);
            }
            puts.increment();
            bytesWritten.add(key.length + value.length);
        } catch (RocksDBException e) {
            throw fail("put", e, true);
        } finally {
            invalidate(key);
            exit();
            putTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void delete(byte[] key, WriteMode mode) {
        Limits.checkKey(key, config.maxKeyBytes());
        Limits.requireNonNull(mode, "mode");
        checkOpen();
        checkWritable("delete");
        long start = requestStart();
        takeQuota(RequestKind.WRITE, PartitionQuota.writeUnits(key.length));
        admit(RequestKind.WRITE, key.length);
        enter();
        try {
            WriteOptions wo = writeOptions(mode);
            if (wo == syncWrite) {
                try (WriteBatch wb = new WriteBatch()) {
                    wb.delete(key);
                    writeSynced(wb);
                }
            } else {
                db.delete(wo, key);
            }
            deletes.increment();
            bytesWritten.add(key.length);
        } catch (RocksDBException e) {
            throw fail("delete", e, true);
        } finally {
            invalidate(key);
            exit();
            deleteTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void write(Batch batch, WriteMode mode) {
        Limits.requireNonNull(batch, "batch");
        Limits.requireNonNull(mode, "mode");
        for (Batch.Op op : batch.opsView()) {
            Limits.checkKey(op.key(), config.maxKeyBytes());
            if (!op.isDelete()) {
                Limits.checkValue(op.value(), config.maxValueBytes());
            }
        }
        checkOpen();
        if (batch.isEmpty()) {
            return;
        }
        checkWritable("write(batch of " + batch.size() + ")");
        long start = requestStart();
        takeQuota(RequestKind.WRITE, PartitionQuota.writeUnits(batch.bytes()));
        admit(RequestKind.WRITE, batch.bytes(), batch.size());
        enter();
        try (WriteBatch wb = new WriteBatch()) {
            long p = 0, d = 0;
            for (Batch.Op op : batch.opsView()) {
                if (op.isDelete()) {
                    wb.delete(op.key());
                    d++;
                } else {
                    wb.put(op.key(), op.value());
                    p++;
                }
            }
            WriteOptions wo = writeOptions(mode);
            if (wo == syncWrite) {
                writeSynced(wb);
            } else {
                db.write(wo, wb);
            }
            puts.add(p);
            deletes.add(d);
            bytesWritten.add(batch.bytes());
        } catch (RocksDBException e) {
            throw fail("write(batch of " + batch.size() + ")", e, true);
        } finally {
            if (readCache != null) {
                for (Batch.Op op : batch.opsView()) {
                    invalidate(op.key());
                }
            }
            exit();
            batchTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Timed as its open (quota and admission waits, and the iterator's creation): the time the caller then spends
     * iterating is its own. Until 2026-11-28 an iterator scan was not timed at all (metrics probe).
     */
    @Override
    public ScanIterator scan(KeyRange range) {
        long start = requestStart();
        try {
            return openScan(range, false);
        } finally {
            scanTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    private Scan openScan(KeyRange range, boolean keysOnly) {
        Limits.requireNonNull(range, "range");
        checkOpen();
        takeQuota(RequestKind.SCAN, 1);
        admit(RequestKind.SCAN, 0);
        enter();
        try {
            Scan s = new Scan(range, keysOnly);
            openScans.add(s);
            scans.increment();
            return s;
        } finally {
            exit();
        }
    }

    private static void checkLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
    }

    @Override
    public List<KeyValue> scan(KeyRange range, int limit) {
        checkLimit(limit);
        long start = requestStart();
        List<KeyValue> out = new ArrayList<>(Math.min(limit, 1024));
        try (ScanIterator it = openScan(range, false)) { // timed once, here, not also as an iterator's open
            while (out.size() < limit && it.hasNext()) {
                out.add(it.next());
            }
        } finally {
            scanTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        return out;
    }

    @Override
    public List<byte[]> scanKeys(KeyRange range, int limit) {
        checkLimit(limit);
        long start = requestStart();
        List<byte[]> out = new ArrayList<>(Math.min(limit, 1024));
        try (Scan it = openScan(range, true)) {
            while (out.size() < limit && it.hasNext()) {
                out.add(it.next().key());
            }
        } finally {
            scanTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        return out;
    }

    @Override
    public void flush() {
        checkOpen();
        enter();
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo);
        } catch (RocksDBException e) {
            if ((closing || closed)
                    && e.getStatus() != null
                    && e.getStatus().getCode() == org.rocksdb.Status.Code.ShutdownInProgress) {
                // the node closed while the flush waited (it cancels background work first): like any other call
                // racing a close, not a fault of the partition (which fail() would mark suspect)
                throw new IllegalStateException(
                        "partition '" + name + "' is closed (it closed while this flush ran)", e);
            }
            throw fail("flush", e);
        } finally {
            exit();
        }
    }

    // ---- async API: admission without a thread, then the node's I/O pool ----

    @Override
    public CompletableFuture<byte[]> getAsync(byte[] key) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.checkKey(key, config.maxKeyBytes());
        byte[] k = key.clone(); // the task runs later on a pool thread: the caller may reuse its array at once
        return async(RequestKind.READ, k.length, 1, 1, () -> withoutGate(called, () -> get(k)));
    }

    @Override
    public CompletableFuture<List<byte[]>> multiGetAsync(List<byte[]> keys) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.requireNonNull(keys, "keys");
        long bytes = 0;
        for (byte[] k : keys) {
            Limits.checkKey(k, config.maxKeyBytes());
            bytes += k.length;
        }
        List<byte[]> copy = new ArrayList<>(keys.size());
        for (byte[] k : keys) {
            copy.add(k.clone()); // the list and every array: the caller may reuse them once this returns
        }
        return async(RequestKind.READ, bytes, copy.size(), 1, () -> withoutGate(called, () -> multiGet(copy)));
    }

    @Override
    public CompletableFuture<Void> putAsync(byte[] key, byte[] value, WriteMode mode) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.checkKey(key, config.maxKeyBytes());
        Limits.checkValue(value, config.maxValueBytes());
        Limits.requireNonNull(mode, "mode");
        byte[] k = key.clone(), v = value.clone(); // the caller may reuse its arrays once this returns
        CompletableFuture<Void> refused = refuseIfStopped("putAsync");
        if (refused != null) {
            return refused;
        }
        return async(
                RequestKind.WRITE,
                key.length + value.length,
                1,
                PartitionQuota.writeUnits(key.length + value.length),
                () -> withoutGate(called, () -> {
                    put(k, v, mode);
                    return null;
                }));
    }

    @Override
    public CompletableFuture<Void> deleteAsync(byte[] key, WriteMode mode) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.checkKey(key, config.maxKeyBytes());
        Limits.requireNonNull(mode, "mode");
        byte[] k = key.clone(); // the caller may reuse its array once this returns
        CompletableFuture<Void> refused = refuseIfStopped("deleteAsync");
        if (refused != null) {
            return refused;
        }
        return async(
                RequestKind.WRITE,
                k.length,
                1,
                PartitionQuota.writeUnits(k.length),
                () -> withoutGate(called, () -> {
                    delete(k, mode);
                    return null;
                }));
    }

    @Override
    public CompletableFuture<Void> writeAsync(Batch batch, WriteMode mode) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.requireNonNull(batch, "batch");
        Limits.requireNonNull(mode, "mode");
        Batch copy = new Batch();
        for (Batch.Op op : batch.opsView()) { // validates every element on the caller's thread, and snapshots the batch
            Limits.checkKey(op.key(), config.maxKeyBytes());
            if (op.isDelete()) {
                copy.delete(op.key());
            } else {
                Limits.checkValue(op.value(), config.maxValueBytes());
                copy.put(op.key(), op.value());
            }
        }
        if (!copy.isEmpty()) {
            CompletableFuture<Void> refused = refuseIfStopped("writeAsync");
            if (refused != null) {
                return refused;
            }
        }
        return async(
                RequestKind.WRITE,
                copy.bytes(),
                Math.max(1, copy.size()),
                copy.isEmpty() ? 0 : PartitionQuota.writeUnits(copy.bytes()),
                () -> withoutGate(called, () -> {
                    write(copy, mode);
                    return null;
                }));
    }

    @Override
    public CompletableFuture<List<KeyValue>> scanAsync(KeyRange range, int limit) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.requireNonNull(range, "range"); // immutable: KeyRange copied the caller's bounds
        checkLimit(limit); // at the call, like every other bad argument, not on the pool thread after admission
        return async(RequestKind.SCAN, 0, 1, 1, () -> withoutGate(called, () -> scan(range, limit)));
    }

    @Override
    public CompletableFuture<List<byte[]>> scanKeysAsync(KeyRange range, int limit) {
        long called = System.nanoTime(); // its latency includes the quota and admission waits
        Limits.requireNonNull(range, "range");
        checkLimit(limit);
        return async(RequestKind.SCAN, 0, 1, 1, () -> withoutGate(called, () -> scanKeys(range, limit)));
    }

    /**
     * The admitted async request running on this pool thread, if any: its synchronous path bypasses the gate and the
     * quota, and its latency counts from when it was called. One thread-local for both, read on every request.
     */
    private static final class AsyncCall {
        boolean admitted;
        long calledNanos;
    }

    private static final ThreadLocal<AsyncCall> ASYNC = ThreadLocal.withInitial(AsyncCall::new);

    /**
     * Runs an admitted async request's synchronous path on this pool thread, its latency counted from {@code
     * calledNanos}: until 2026-11-28 the request timers started here, after the quota, admission and queue waits, so a
     * server whose every command is async reported put latencies ~100x below what its clients saw (metrics probe).
     */
    private <T> T withoutGate(long calledNanos, Supplier<T> op) {
        AsyncCall c = ASYNC.get();
        c.admitted = true;
        c.calledNanos = calledNanos;
        try {
            return op.get();
        } finally {
            c.admitted = false;
        }
    }

    /** A request's start for its latency timer: the async call's time when it runs admitted, else now. */
    private static long requestStart() {
        AsyncCall c = ASYNC.get();
        return c.admitted ? c.calledNanos : System.nanoTime();
    }

    @Override
    public LsmSnapshot snapshot() {
        return snapshotSupplier.get();
    }

    // ---- health ----

    @Override
    public PartitionHealth health() {
        checkOpen();
        PartitionHealth down = unavailableHealth();
        if (down != null) {
            return down;
        }
        try {
            enter();
        } catch (SluiceException e) {
            down = unavailableHealth(); // a resume failed meanwhile
            if (down != null) {
                return down;
            }
            throw e;
        }
        try {
            return healthLocked();
        } finally {
            exit();
        }
    }

    /**
     * The partition's health while a {@link #resume()} could not reopen it (every request fails until a resume
     * succeeds), or null when it is not in that state. Reported, not thrown: until 2026-11-28 {@code health()} threw
     * there, the {@code sluice.health} gauge read NaN, and the sampler's exception stopped every controller of the node
     * (fault-injection probe).
     */
    PartitionHealth unavailableHealth() {
        String why = unavailable;
        return why == null
                ? null
                : new PartitionHealth(
                        "unavailable: resume() could not reopen it (" + why
                                + "); fix the cause and call resume() again",
                        true,
                        true,
                        false,
                        listener.backgroundErrors.get());
    }

    /**
     * Set when something suggests a background error (a request failed in RocksDB, the listener or RocksDB's error
     * counter reported one); cleared when the partition is found healthy. While it is false writes skip every check.
     */
    private volatile boolean suspect;
    /** RocksDB's ERROR_HANDLER_BG_ERROR_COUNT when the partition was last found healthy. */
    private volatile long errorsAcknowledged;
    /** RocksDB's ERROR_HANDLER_AUTORESUME_COUNT and _SUCCESS_COUNT when the partition was last found healthy. */
    private volatile long resumesAcknowledged;

    private volatile long resumeSuccessesAcknowledged;
    /**
     * An error count RocksDB reported since the partition was last healthy, and when it was first seen: it is taken as
     * harmless only {@link #ERROR_SETTLE_NANOS} later, see {@link #healthLocked}.
     */
    private volatile long pendingErrorCount = -1;

    private volatile long pendingErrorSince;
    /**
     * How long a new background error must have been counted before writes flowing and no recovery running read as
     * healthy. RocksDB counts the error, then calls the listeners with its mutex released, and only then starts its
     * automatic resume: a caller woken in between (the flush that failed) saw the count without a resume, found writes
     * flowing (a retryable flush error is a soft error: flushes stop, writes do not) and the partition healthy, while
     * its next flush got the error back (3 of 25 runs of BackgroundErrorNodeTest's retryable case, 2026-11-29).
     */
    static final long ERROR_SETTLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Health under the lifecycle read lock (the sampler calls this each tick).
     *
     * <p>Sources: the listener's OnBackgroundError (the reason and text), RocksDB's error counter (Statistics
     * ERROR_HANDLER_BG_ERROR_COUNT: rocksdbjni 9.10 cannot deliver OnBackgroundError for the reasons its Java enum
     * lacks — kFlushNoWAL, kManifestWrite, kManifestWriteNoWAL — so the counter is what catches those) and a probe
     * write (see {@link #probeWrites}), whose error is RocksDB's background error itself. RocksDB retries retryable
     * I/O errors on its own (ERROR_HANDLER_AUTORESUME_COUNT counts the attempts it started; OnErrorRecoveryBegin with an
     * out-of-space error announces the SstFileManager's, see {@link PartitionListener#recoveriesBegun}); each attempt ends with OnErrorRecoveryCompleted, called whether or not it succeeded, so
     * success is read from the DB: writes flow again, every automatic resume RocksDB started since the partition was
     * last healthy was counted a success (ERROR_HANDLER_AUTORESUME_SUCCESS_COUNT: a retryable flush error is a soft
     * error, so writes flow while flushes are stopped, and a resume that ended without success must not read as
     * healthy), and a new error count is at least {@link #ERROR_SETTLE_NANOS} old (RocksDB starts its resume only
     * after it has counted the error and called the listeners).
     */
    PartitionHealth healthLocked() {
        PartitionListener.BackgroundError bg = listener.backgroundError();
        long counted = statistics.getTickerCount(TickerType.ERROR_HANDLER_BG_ERROR_COUNT);
        long count = Math.max(listener.backgroundErrors.get(), counted);
        long resumes = statistics.getTickerCount(TickerType.ERROR_HANDLER_AUTORESUME_COUNT);
        // the success count is read only when RocksDB started a resume since the partition was last healthy: health
        // runs every tick, and each ticker is a JNI call
        long successes = resumes > resumesAcknowledged
                ? statistics.getTickerCount(TickerType.ERROR_HANDLER_AUTORESUME_SUCCESS_COUNT)
                : resumeSuccessesAcknowledged;
        boolean resumeUnfinished = resumes - resumesAcknowledged > successes - resumeSuccessesAcknowledged;
        if (bg == null && counted <= errorsAcknowledged && !resumeUnfinished) {
            suspect = false;
            return count == 0 ? PartitionHealth.OK : new PartitionHealth(null, false, true, false, count);
        }
        suspect = true;
        long started = resumes + listener.recoveriesBegun.get();
        long ended = listener.recoveriesEnded.get();
        boolean recovering = started > ended;
        boolean settled = true;
        if (counted > errorsAcknowledged) {
            long now = System.nanoTime();
            if (counted != pendingErrorCount) {
                pendingErrorCount = counted;
                pendingErrorSince = now;
            }
            settled = now - pendingErrorSince >= ERROR_SETTLE_NANOS;
        }
        String probe = probeWrites();
        boolean stopped = probe != null;
        if (!stopped
                && !recovering
                && !resumeUnfinished
                && settled
                && (bg == null || ended > bg.recoveriesEndedBefore())) {
            listener.clearBackgroundError(bg); // RocksDB recovered on its own (or the error never stopped writes)
            errorsAcknowledged = counted;
            resumesAcknowledged = resumes;
            resumeSuccessesAcknowledged = successes;
            suspect = false;
            return new PartitionHealth(null, false, true, false, count);
        }
        String text = bg != null ? bg.text() : stopped ? probe : "background error #" + counted + " (no detail)";
        // auto-recovering only when RocksDB started a recovery: a new error's settle second is no sign of one (until
        // 2026-11-29 it read as one, and the first second of a non-retryable WAL error's refusals said "RocksDB is
        // retrying on its own" before later ones said "fix the cause, then resume()"; a fault probe)
        return new PartitionHealth(text, stopped, bg == null || !bg.corruption(), recovering, count);
    }

    /**
     * Whether RocksDB refuses writes because of a background error: a write of an empty batch without WAL and without
     * waiting on a stall changes nothing, and fails exactly when the DB is stopped, with the background error as its
     * status. Returns that error's text, or null when writes flow. A write stall (Incomplete) is not a stop.
     */
    private String probeWrites() {
        try (WriteOptions probe = new WriteOptions().setDisableWAL(true).setNoSlowdown(true);
                WriteBatch empty = new WriteBatch()) {
            db.write(probe, empty);
            return null;
        } catch (RocksDBException e) {
            return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Incomplete ? null : describe(e);
        }
    }

    /** Throws, before admission, when a background error stopped writes. No cost while nothing is suspected. */
    private void checkWritable(String what) {
        if (!suspect && listener.backgroundError() == null || ASYNC.get().admitted) {
            return; // an admitted async write was checked at its call; if RocksDB stopped since, its write fails
        }
        PartitionHealth h = health();
        if (h.writesStopped()) {
            throw stopped(what, h);
        }
    }

    private CompletableFuture<Void> refuseIfStopped(String what) {
        checkOpen();
        try {
            checkWritable(what);
            return null;
        } catch (SluiceException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private SluiceException stopped(String what, PartitionHealth h) {
        return new SluiceException("partition '" + name + "': " + what + " refused: RocksDB stopped writes after a"
                + " background error (" + h.backgroundError() + "). Reads still work and acknowledged writes are kept."
                + (h.autoRecovering()
                        ? " RocksDB is retrying on its own; writes resume if it succeeds, or call Partition.resume()."
                        : h.recoverable()
                                ? " Fix the cause, then call Partition.resume()."
                                : " The error is not recoverable (corruption): restore the partition from a backup."));
    }

    /**
     * Clears a background error by reopening the DB (rocksdbjni 9.10 has no {@code DB::Resume}): waits for running
     * requests, closes open scans (using one afterwards throws), closes the DB and opens it again with the same options;
     * the reopen replays the WAL, so every acknowledged write is kept. Options changed at run time (by controllers)
     * return to the profile's values until a controller sets them again. A no-op when the partition is healthy.
     */
    @Override
    public PartitionHealth resume() {
        checkOpen();
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("partition '" + name + "' is closed");
            }
            PartitionHealth before = unavailable == null ? healthLocked() : null;
            if (before != null && before.ok()) {
                return before;
            }
            org.slf4j.Logger log = LoggerFactory.getLogger(RocksPartition.class);
            log.warn(
                    "partition '{}': reopening to clear {}",
                    name,
                    before == null ? "a failed reopen (" + unavailable + ")" : before.backgroundError());
            for (Scan sc : List.copyOf(openScans)) {
                sc.closeBecause("resume() reopened the partition");
            }
            if (db != null) {
                db.cancelAllBackgroundWork(true);
                try {
                    db.closeE(); // no WAL sync: a stopped DB refuses it; the reopen replays what the WAL holds
                } catch (RocksDBException e) {
                    log.warn("partition '{}': close before reopen reported {}", name, describe(e));
                }
                db = null;
            }
            try {
                db = RocksDB.open(options, dir.toString());
            } catch (RocksDBException e) {
                unavailable = describe(e);
                throw new SluiceException(
                        "partition '" + name + "': resume() could not reopen " + dir + ": " + describe(e)
                                + "; fix the cause and call resume() again",
                        e);
            }
            unavailable = null;
            ReadCache c = readCache;
            if (c != null) {
                c.invalidateAll(); // the WAL replay may hold writes that failed (never acknowledged) but reached it
            }
            listener.clearBackgroundError(listener.backgroundError());
            errorsAcknowledged = statistics.getTickerCount(TickerType.ERROR_HANDLER_BG_ERROR_COUNT);
            resumesAcknowledged = statistics.getTickerCount(TickerType.ERROR_HANDLER_AUTORESUME_COUNT);
            resumeSuccessesAcknowledged = statistics.getTickerCount(TickerType.ERROR_HANDLER_AUTORESUME_SUCCESS_COUNT);
            suspect = false;
            maxBackgroundJobs = options.maxBackgroundJobs();
            maxSubcompactions = options.maxSubcompactions();
            return healthLocked();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    // ---- scans ----

    /** A cursor over a RocksIterator; closed by the user or, at the latest, before the DB. */
    private static final byte[] NO_VALUE = new byte[0];

    private final class Scan implements ScanIterator {
        private final KeyRange range;
        /** Keys only: no value is copied out of RocksDB (entries carry {@link #NO_VALUE}). */
        private final boolean keysOnly;
        /** The size of {@link #next}'s value in the store (copied or not). */
        private int nextValueBytes;
        /** Zero capacity: {@code RocksIterator.value(buffer)} copies nothing into it and returns the value's size. */
        private final java.nio.ByteBuffer sizeOnly = java.nio.ByteBuffer.allocateDirect(0);

        private final ReadOptions ro;
        private final Slice upper;
        private final RocksIterator it;
        private KeyValue next;
        /**
         * Volatile, and set after {@link #closedWhy} by a close: a thread that sees {@code done} also sees why, so a
         * scan closed under it fails with the reason instead of looking like the end of the range.
         */
        private volatile boolean done;
        /** Key + value bytes returned so far, and the read units charged for them (the first one at open). */
        private long returnedBytes;

        private long chargedUnits = 1;
        /** Why it was closed ("closed"/the reason), or null while open. */
        private volatile String closedWhy;

        Scan(KeyRange range, boolean keysOnly) {
            this.range = range;
            this.keysOnly = keysOnly;
            this.ro = new ReadOptions();
            byte[] end = range.endRef();
            if (end != null) {
                // Exclusive end: the bound itself. Inclusive end: end ++ 0x00, the smallest key after it.
                upper = new Slice(range.endInclusive() ? java.util.Arrays.copyOf(end, end.length + 1) : end);
                ro.setIterateUpperBound(upper);
            } else {
                upper = null;
            }
            it = db.newIterator(ro);
            try {
                position(range);
            } catch (RuntimeException e) {
                it.close();
                ro.close();
                if (upper != null) {
                    upper.close();
                }
                throw e;
            }
        }

        private void position(KeyRange range) {
            byte[] start = range.startRef();
            if (start == null) {
                it.seekToFirst();
            } else {
                it.seek(start);
                if (!range.startInclusive() && it.isValid() && java.util.Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            advanceCheck();
        }

        private void advanceCheck() {
            if (!it.isValid()) {
                try {
                    it.status();
                } catch (RocksDBException e) {
                    done = true;
                    throw fail("scan", e);
                }
                done = true;
                return;
            }
            byte[] k = it.key();
            if (range.pastEnd(k)) {
                done = true;
                return;
            }
            if (keysOnly) {
                // the value's size without copying it out: the scan still read it (values sit in the data blocks), so
                // the quota and the read statistics count it
                nextValueBytes = it.value(sizeOnly);
                next = new KeyValue(k, NO_VALUE);
            } else {
                next = new KeyValue(k, it.value());
                nextValueBytes = next.value().length;
            }
        }

        private void checkNotClosed() {
            String why = closedWhy;
            if (why != null) {
                throw new IllegalStateException("scan of partition '" + name + "' is closed (" + why
                        + "); its results end here, not at the end of the range");
            }
        }

        /**
         * True at the end of the range; throws if the scan was closed. {@code done} is read first: if a close set it,
         * the reason is visible by then (see {@link #done}). Until 2026-11-26 the order was the other way round, and a
         * close between the two reads made a closed scan end quietly (hasNext false) or next() throw
         * NoSuchElementException instead of saying it was closed.
         */
        private boolean ended() {
            boolean d = done;
            checkNotClosed();
            return d;
        }

        @Override
        public boolean hasNext() {
            return !ended();
        }

        /**
         * The iterator is touched only under the lifecycle read lock and this scan's monitor, with the closed flag read
         * again inside both: {@link #closeBecause} (a close from another thread, the node's close) takes the same two
         * in the same order, and {@code resume()} holds the write lock. Until 2026-11-26 the flag was read before the
         * lock only, and a close in between (resume() after a disk-full error, or a watchdog thread's close) freed
         * the native iterator under a running {@code next()}: the JVM died with SIGSEGV.
         */
        @Override
        public KeyValue next() {
            if (ended()) {
                throw new java.util.NoSuchElementException("scan of partition '" + name + "' has no more entries");
            }
            enter();
            try {
                synchronized (this) {
                    return nextLocked();
                }
            } finally {
                exit();
            }
        }

        private KeyValue nextLocked() {
            if (ended()) {
                throw new java.util.NoSuchElementException("scan of partition '" + name + "' has no more entries");
            }
            KeyValue r = next;
            scannedEntries.increment();
            bytesRead.add(r.key().length + nextValueBytes);
            returnedBytes += r.key().length + nextValueBytes;
            long owed = PartitionQuota.readUnits(returnedBytes);
            if (owed > chargedUnits) {
                quota.charge(RequestKind.SCAN, owed - chargedUnits);
                chargedUnits = owed;
            }
            it.next();
            advanceCheck();
            return r;
        }

        /** Under the lifecycle read lock, so a user's close never races the DB's close (the closer holds the write lock). */
        @Override
        public void close() {
            closeBecause("closed by its caller");
        }

        void closeBecause(String why) {
            lifecycle.readLock().lock();
            try {
                synchronized (this) { // never while a next() of another thread uses the iterator
                    if (openScans.remove(this)) {
                        closedWhy = why;
                        done = true;
                        it.close();
                        ro.close();
                        if (upper != null) {
                            upper.close();
                        }
                    }
                }
            } finally {
                lifecycle.readLock().unlock();
            }
        }
    }

    // ---- close ----

    /** Waits for running requests, closes open scans, then the DB and its options. Idempotent. */
    void close() {
        ReadCache c = readCache;
        if (c != null && !closed) {
            c.close(); // first, without the lock: its prefetches take the read lock and must not block the close
        }
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            gate.close();
            quota.close(); // requests waiting for their tenant's quota fail now, not at the end of their wait
            for (Scan s : List.copyOf(openScans)) {
                s.closeBecause("the node closed it");
            }
            RocksDB db = this.db;
            if (db != null) {
                closeDb(db);
            }
            readOptions.close();
            syncWrite.close();
            asyncWrite.close();
            options.close();
            statistics.close();
            listener.close();
            compactionLimiter.close();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /**
     * Syncs the WAL and closes the DB; when both succeed, records the newest sequence number as the partition's clean
     * close ({@link CleanClose}), which the next open checks the recovered state against.
     */
    private void closeDb(RocksDB db) {
        long synced = -1;
        try {
            db.cancelAllBackgroundWork(true);
            db.syncWal();
            synced = db.getLatestSequenceNumber();
        } catch (RocksDBException e) {
            // Acknowledged writes are in the WAL already (in the page cache at least); say so rather than hide it.
            LoggerFactory.getLogger(RocksPartition.class)
                    .warn("partition '{}': WAL sync at close failed: {}", name, describe(e));
        }
        try {
            db.closeE();
        } catch (RocksDBException e) {
            synced = -1;
            LoggerFactory.getLogger(RocksPartition.class).warn("partition '{}': close reported {}", name, describe(e));
        }
        if (synced >= 0) {
            try {
                CleanClose.record(dir, synced);
            } catch (IOException e) {
                LoggerFactory.getLogger(RocksPartition.class)
                        .warn(
                                "partition '{}': could not record its clean close ({}); the next open cannot check"
                                        + " that its WAL kept every synced write",
                                name,
                                e.toString());
            }
        }
    }

    /**
     * Aborts a running manual compaction ({@code compactFiles}) at close: RocksDB's shutdown flag, which the compaction
     * checks between keys, ends it with ShutdownInProgress within about one I/O (rocksdbjni 9.10 has no {@code
     * DisableManualCompaction}; {@code CancelAllBackgroundWork(false)} sets that flag without waiting). Also stops
     * scheduling flushes and compactions, so the node calls this only after admitted async requests finished; the DB
     * closes next.
     */
    void abortBackgroundWork() {
        try {
            enter();
        } catch (RuntimeException e) {
            return; // closed or unavailable: nothing runs
        }
        try {
            db.cancelAllBackgroundWork(false);
        } finally {
            exit();
        }
    }

    /** Runs a manual compaction unless the partition is closing (then it fails with IllegalStateException). */
    List<String> compactFilesGuarded(org.rocksdb.CompactionOptions co, List<String> files, int outputLevel)
            throws RocksDBException {
        enter();
        try {
            return db.compactFiles(co, files, outputLevel, -1, null);
        } finally {
            exit();
        }
    }

    boolean isClosed() {
        return closed;
    }
}
