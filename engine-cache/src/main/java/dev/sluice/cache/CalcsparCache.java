package dev.sluice.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.core.spi.ReadCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calcspar's fluctuation-aware cache (§4.3): one Caffeine cache space of key → value entries shared by the node's
 * partitions, a {@link HotnessTable} per partition, and one prefetch thread. See {@code CALCSPAR-CACHE.md} next to this
 * class for the design, the coherence argument and what approximates the paper.
 *
 * <ul>
 *   <li>Every miss is offered to the cache (admission on misses), in both modes.
 *   <li>{@link CacheMode#PROACTIVE}: once per period the prefetch thread (named {@code sluice-prefetch-<n>}, so the
 *       priority Env charges its reads to the PREFETCH class, the lowest queue of the Calcspar allocator) spends the
 *       prefetch budget on the L0/L1 re-warm ranges the controller asked for, then on the hottest blocks not read in
 *       the last {@code refreshPeriods} periods.
 *   <li>{@link CacheMode#PASSIVE}: no prefetch.
 * </ul>
 *
 * <p>Coherence (see {@link ReadCache}): a global write sequence and 4096 stripes holding the sequence of the last
 * write that hashed to them. A fill carries the sequence read before the engine read and is refused (atomically, in
 * Caffeine's {@code compute} for that key) if the key's stripe or the partition's floor is newer; a write bumps the
 * sequence and the stripe, then removes the entry.
 *
 * <p>Thread-safety: every public method may be called from any thread.
 */
public final class CalcsparCache implements CacheActuator, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CalcsparCache.class);
    private static final int STRIPES = 4096;
    /** Bytes charged per entry on top of key and value (entry, key and value objects, Caffeine's node). */
    static final int ENTRY_OVERHEAD = 96;
    /** Most entries one block or re-warm range scan puts in the cache. */
    static final int MAX_ENTRIES_PER_SCAN = 8192;

    /** Static settings of a cache. */
    public record Settings(
            long capacityBytes,
            long blockBytes,
            long ioUnitBytes,
            double alpha,
            long periodMillis,
            int refreshPeriods) {
        public Settings {
            if (capacityBytes <= 0) {
                throw new IllegalArgumentException("capacityBytes must be positive, got " + capacityBytes);
            }
            if (blockBytes <= 0 || ioUnitBytes <= 0) {
                throw new IllegalArgumentException("blockBytes and ioUnitBytes must be positive");
            }
            if (!(alpha > 0 && alpha <= 1)) {
                throw new IllegalArgumentException("alpha must be in (0, 1], got " + alpha);
            }
            if (periodMillis <= 0 || refreshPeriods < 1) {
                throw new IllegalArgumentException("periodMillis and refreshPeriods must be positive");
            }
        }
    }

    private record EntryKey(int partition, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof EntryKey e && e.partition == partition && Arrays.equals(e.key, key);
        }

        @Override
        public int hashCode() {
            return 31 * partition + Arrays.hashCode(key);
        }
    }

    /** A cached value; {@code value == null} means the key is known to be absent. */
    private record Val(byte[] value) {}

    private final Settings settings;
    private final Cache<EntryKey, Val> store;
    private final AtomicLong writeSeq = new AtomicLong();
    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
    private final Map<String, View> views = new LinkedHashMap<>();
    private final List<View> viewList = new ArrayList<>();
    private volatile CacheMode mode = CacheMode.PROACTIVE;
    private volatile double prefetchBudget;
    private final LongAdder[] hits = {new LongAdder(), new LongAdder()};
    private final LongAdder[] misses = {new LongAdder(), new LongAdder()};
    private final LongAdder prefetchIos = new LongAdder(),
            prefetchBytes = new LongAdder(),
            prefetchedBlocks = new LongAdder(),
            staleRefused = new LongAdder(),
            rewarmSkipped = new LongAdder(),
            modeSwitches = new LongAdder();
    private final AtomicInteger openViews = new AtomicInteger();
    private final Object lifecycle = new Object();
    private ExecutorService prefetcher;
    private volatile boolean closed;

    public CalcsparCache(Settings settings) {
        this.settings = settings;
        this.store = Caffeine.newBuilder()
                .maximumWeight(settings.capacityBytes())
                .weigher((EntryKey k, Val v) -> k.key.length + (v.value == null ? 0 : v.value.length) + ENTRY_OVERHEAD)
                .executor(Runnable::run)
                .build();
    }

    /** The {@link ReadCache} of one partition; install it with the node's {@code ControlContext}. */
    public synchronized ReadCache forPartition(String partition) {
        if (views.containsKey(partition)) {
            throw new IllegalStateException("partition '" + partition + "' already has a view of this cache");
        }
        View v = new View(partition, viewList.size());
        views.put(partition, v);
        viewList.add(v);
        openViews.incrementAndGet();
        return v;
    }

    /** Registers hit/miss/prefetch meters ({@code sluice.cache.*}) in {@code registry}. */
    public void bindMeters(MeterRegistry registry) {
        for (CacheMode m : CacheMode.values()) {
            String tag = m.name().toLowerCase(java.util.Locale.ROOT);
            FunctionCounter.builder("sluice.cache.requests", hits[m.ordinal()], LongAdder::sum)
                    .tags("result", "hit", "mode", tag)
                    .description("point lookups answered by the Calcspar cache")
                    .register(registry);
            FunctionCounter.builder("sluice.cache.requests", misses[m.ordinal()], LongAdder::sum)
                    .tags("result", "miss", "mode", tag)
                    .description("point lookups the Calcspar cache sent to the engine")
                    .register(registry);
        }
        FunctionCounter.builder("sluice.cache.prefetch.ios", prefetchIos, LongAdder::sum)
                .description("I/O units the prefetcher read (estimated from scanned bytes)")
                .register(registry);
        FunctionCounter.builder("sluice.cache.prefetch.bytes", prefetchBytes, LongAdder::sum)
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder(
                        "sluice.cache.bytes",
                        this,
                        c -> c.store
                                .policy()
                                .eviction()
                                .flatMap(e -> e.weightedSize().stream().boxed().findFirst())
                                .orElse(0L))
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("sluice.cache.mode", this, c -> c.mode.ordinal())
                .description("0 = proactive, 1 = passive")
                .register(registry);
    }

    public CacheMode mode() {
        return mode;
    }

    public double prefetchBudget() {
        return prefetchBudget;
    }

    public Settings settings() {
        return settings;
    }

    public synchronized CacheStats stats() {
        long table = 0;
        for (View v : viewList) {
            table += v.table.memoryBytes();
        }
        return new CacheStats(
                new long[] {hits[0].sum(), hits[1].sum()},
                new long[] {misses[0].sum(), misses[1].sum()},
                prefetchIos.sum(),
                prefetchBytes.sum(),
                prefetchedBlocks.sum(),
                rewarmSkipped.sum(),
                staleRefused.sum(),
                modeSwitches.sum(),
                store.policy()
                        .eviction()
                        .flatMap(e -> e.weightedSize().stream().boxed().findFirst())
                        .orElse(0L),
                table);
    }

    /** The hotness table of a partition (for tests and the bench). */
    public HotnessTable hotness(String partition) {
        return view(partition).table;
    }

    // ---- CacheActuator ----

    @Override
    public void setMode(CacheMode m) {
        if (mode != m) {
            mode = m;
            modeSwitches.increment();
        }
    }

    @Override
    public void setPrefetchBudget(double unitsPerSecond) {
        prefetchBudget = Math.max(0, unitsPerSecond);
    }

    @Override
    public void setLayout(String partition, List<HotnessTable.Extent> files) {
        View v = view(partition);
        synchronized (v) {
            v.table = v.table.rebuild(files, settings.blockBytes());
            v.recent.clear();
        }
    }

    @Override
    public void rewarm(String partition, List<KeyRangeBytes> ranges) {
        View v = view(partition);
        synchronized (v) {
            v.rewarm.clear();
            v.rewarm.addAll(ranges);
        }
    }

    private View view(String partition) {
        View v;
        synchronized (this) {
            v = views.get(partition);
        }
        if (v == null) {
            throw new IllegalArgumentException("no partition '" + partition + "' in the Calcspar cache");
        }
        return v;
    }

    // ---- prefetch ----

    /**
     * Runs one prefetch period now on the prefetch thread and waits for it (tests; the thread also runs one every
     * period on its own): decays every hotness table, then, in proactive mode, spends one period's budget.
     *
     * @return I/O units spent
     */
    public long prefetchNow() throws Exception {
        Future<Long> f;
        synchronized (lifecycle) {
            if (prefetcher == null) {
                throw new IllegalStateException("no partition is bound to the cache yet");
            }
            f = prefetcher.submit(this::period);
        }
        return f.get(60, TimeUnit.SECONDS);
    }

    private void startPrefetcher() {
        synchronized (lifecycle) {
            if (prefetcher != null || closed) {
                return;
            }
            AtomicInteger n = new AtomicInteger();
            prefetcher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sluice-prefetch-" + n.getAndIncrement());
                t.setDaemon(true);
                return t;
            });
            ((java.util.concurrent.ScheduledExecutorService) prefetcher)
                    .scheduleWithFixedDelay(
                            () -> {
                                try {
                                    period();
                                } catch (RuntimeException e) {
                                    if (!closed) {
                                        log.warn("Calcspar prefetch period failed: {}", e.toString());
                                    }
                                }
                            },
                            settings.periodMillis(),
                            settings.periodMillis(),
                            TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Widest re-warm range, in hotness blocks, that is scanned: an eighth of the cache's capacity (at least one block).
     * A wider range is skipped ({@link CacheStats#rewarmSkipped()}).
     */
    int maxRewarmBlocks() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, settings.capacityBytes() / settings.blockBytes() / 8));
    }

    /** One period on the prefetch thread; returns the I/O units spent. */
    private long period() {
        List<View> vs;
        synchronized (this) {
            vs = List.copyOf(viewList);
        }
        for (View v : vs) {
            v.table.decay();
        }
        if (mode != CacheMode.PROACTIVE || closed) {
            return 0;
        }
        double budget = prefetchBudget * settings.periodMillis() / 1000.0;
        long spent = 0;
        for (View v : vs) {
            if (v.source == null || v.closed) {
                continue;
            }
            // re-warm ranges first (L0/L1, §4.3), then hot blocks
            List<KeyRangeBytes> rw;
            synchronized (v) {
                rw = new ArrayList<>(v.rewarm);
                v.rewarm.clear();
            }
            HotnessTable t = v.table;
            for (KeyRangeBytes r : rw) {
                if (spent >= budget || mode != CacheMode.PROACTIVE) {
                    return spent;
                }
                if (t.blocks() > 0 && t.blockOf(r.last()) - t.blockOf(r.first()) + 1 > maxRewarmBlocks()) {
                    // A file whose keys span much of the key space (random writes make every L0/L1 file do so):
                    // re-warming its range would scan the start of the key space, not the file's data. Hot blocks
                    // are prefetched below anyway.
                    rewarmSkipped.increment();
                    continue;
                }
                byte[] end = Arrays.copyOf(r.last(), r.last().length + 1); // exclusive bound just past last
                spent += scanInto(v, r.first(), end);
            }
            v.periods++;
            for (int b : t.hottest(Math.max(1, (int) Math.min(Integer.MAX_VALUE, (long) budget)), 0.0)) {
                if (spent >= budget || mode != CacheMode.PROACTIVE) {
                    return spent;
                }
                Long last = v.recent.get(b);
                if (last != null && v.periods - last < settings.refreshPeriods()) {
                    continue;
                }
                v.recent.put(b, v.periods);
                spent += scanInto(v, t.blockStart(b), t.blockEnd(b));
            }
        }
        return spent;
    }

    private long scanInto(View v, byte[] from, byte[] to) {
        long stamp = writeSeq.get();
        long bytes;
        try {
            bytes = v.source.scan(
                    from.length == 0 ? null : from,
                    to,
                    MAX_ENTRIES_PER_SCAN,
                    settings.ioUnitBytes(),
                    (k, val) -> v.fill(k, val, stamp));
        } catch (IllegalStateException e) {
            return 0; // the partition closed meanwhile
        }
        long units = Math.max(1, (bytes + settings.ioUnitBytes() - 1) / settings.ioUnitBytes());
        prefetchIos.add(units);
        prefetchBytes.add(bytes);
        prefetchedBlocks.increment();
        return units;
    }

    @Override
    public void close() {
        ExecutorService p;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            p = prefetcher;
        }
        if (p != null) {
            p.shutdownNow(); // no wait: a running scan holds a partition's read lock and ends on its own
        }
        store.invalidateAll();
    }

    // ---- one partition ----

    private final class View implements ReadCache {
        private final String partition;
        private final int index;
        private volatile HotnessTable table;
        private volatile ReadCache.Source source;
        private volatile boolean closed;
        /** Fills with an older stamp are refused (set by invalidateAll). */
        private volatile long floor;
        /** Block → period it was last prefetched in (prefetch thread only; bounded by the table size). */
        private final Map<Integer, Long> recent = new HashMap<>();

        private final ArrayDeque<KeyRangeBytes> rewarm = new ArrayDeque<>();
        private long periods;

        View(String partition, int index) {
            this.partition = partition;
            this.index = index;
            this.table = HotnessTable.empty(settings.alpha());
        }

        @Override
        public void bind(Source source) {
            if (!source.partition().equals(partition)) {
                throw new IllegalArgumentException(
                        "cache view of '" + partition + "' bound to partition '" + source.partition() + "'");
            }
            this.source = source;
            startPrefetcher();
        }

        private int stripe(byte[] key) {
            return (31 * index + Arrays.hashCode(key)) & (STRIPES - 1);
        }

        @Override
        public Cached lookup(byte[] key) {
            table.record(key);
            CacheMode m = mode;
            Val v = store.getIfPresent(new EntryKey(index, key));
            if (v == null) {
                misses[m.ordinal()].increment();
                return null;
            }
            hits[m.ordinal()].increment();
            return new Cached(v.value == null ? null : v.value.clone());
        }

        @Override
        public long stamp() {
            return writeSeq.get();
        }

        @Override
        public void fill(byte[] key, byte[] value, long stamp) {
            if (closed) {
                return;
            }
            int s = stripe(key);
            Val fresh = new Val(value == null ? null : value.clone());
            store.asMap().compute(new EntryKey(index, key.clone()), (k, old) -> {
                if (stripes.get(s) > stamp || floor > stamp) {
                    staleRefused.increment();
                    return old;
                }
                return fresh;
            });
        }

        @Override
        public void invalidate(byte[] key) {
            long seq = writeSeq.incrementAndGet();
            stripes.accumulateAndGet(stripe(key), seq, Math::max);
            store.invalidate(new EntryKey(index, key));
        }

        @Override
        public void invalidateAll() {
            floor = writeSeq.incrementAndGet();
            store.asMap().keySet().removeIf(k -> k.partition == index);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            invalidateAll();
            if (openViews.decrementAndGet() == 0) {
                CalcsparCache.this.close();
            }
        }

        @Override
        public String toString() {
            return "CalcsparCache[" + partition + "]";
        }
    }
}
