package dev.sluice.cache;

import dev.sluice.core.spi.ReadCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calcspar's fluctuation-aware cache (§4.3): one cache space of {@link CachedRange}s shared by the node's partitions,
 * a {@link HotnessTable} per partition, and one prefetch thread. See {@code CALCSPAR-CACHE.md} next to this class for
 * the design, the coherence argument and what approximates the paper.
 *
 * <ul>
 *   <li>The unit of the space is a key range: a prefetched block (the paper's 256 KiB EBS block, packed into one array)
 *       or one key admitted on a miss. A lookup finds the range that covers its key; within it, a key not stored is
 *       known to be absent.
 *   <li>{@link CacheMode#PROACTIVE}: once per period the prefetch thread (named {@code sluice-prefetch-<n>}, so the
 *       priority Env charges its reads to the PREFETCH class, the lowest queue of the Calcspar allocator) spends the
 *       prefetch budget on the L0/L1 re-warm ranges the controller asked for, then on the hottest blocks not cached,
 *       as long as a block is hotter per byte than what it would evict. Eviction takes the ranges with the lowest
 *       smoothed hits per byte.
 *   <li>{@link CacheMode#PASSIVE}: no prefetch; misses are still admitted and eviction takes the least recently used
 *       ranges.
 * </ul>
 *
 * <p>Coherence (see {@link ReadCache}): writes go through. A write calls {@code invalidate}, which, under the key's
 * stripe lock, re-reads the key from the engine and records the value in the overlay of the range that covers it and of
 * every block fill in progress over it. A block fill registers itself before it opens its snapshot, so a write either
 * is in that snapshot or lands in the fill's overlay, which the installed range shares. A one-key fill on a miss
 * carries the write sequence read before the engine read and is refused (under the stripe lock) if the key's stripe or
 * the partition's floor is newer.
 *
 * <p>Thread-safety: every public method may be called from any thread.
 */
public final class CalcsparCache implements CacheActuator, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CalcsparCache.class);
    private static final int STRIPES = 4096;
    /** Most entries one block or re-warm range scan puts in the cache. */
    static final int MAX_ENTRIES_PER_SCAN = 8192;
    /** A block is prefetched only if it is this many times hotter per byte than the ranges it would evict. */
    static final double ADMIT_MARGIN = 1.25;
    /** Eviction frees the space down to this fraction of the capacity, so that it runs once per few admissions. */
    static final double EVICT_TO = 0.97;

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

    private final Settings settings;
    private final LongSupplier nanoClock;
    private final AtomicLong writeSeq = new AtomicLong();
    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
    private final Object[] stripeLocks = new Object[STRIPES];
    private final Map<String, View> views = new LinkedHashMap<>();
    private final List<View> viewList = new ArrayList<>();
    private volatile CacheMode mode = CacheMode.PROACTIVE;
    private volatile double prefetchBudget;
    /** Bytes of the ranges' arrays and fixed overheads (overlays are added at each eviction pass). */
    private final AtomicLong arrayBytes = new AtomicLong();
    /** Overlay bytes found by the last eviction pass or period. */
    private volatile long overlayBytes;

    private final Object evictLock = new Object();
    private final LongAdder[] hits = {new LongAdder(), new LongAdder()};
    private final LongAdder[] misses = {new LongAdder(), new LongAdder()};
    private final LongAdder prefetchIos = new LongAdder(),
            prefetchBytes = new LongAdder(),
            prefetchedBlocks = new LongAdder(),
            staleRefused = new LongAdder(),
            rewarmSkipped = new LongAdder(),
            modeSwitches = new LongAdder(),
            evictions = new LongAdder(),
            merges = new LongAdder();
    private final AtomicInteger openViews = new AtomicInteger();
    private final Object lifecycle = new Object();
    private ExecutorService prefetcher;
    private volatile boolean closed;

    public CalcsparCache(Settings settings) {
        this(settings, System::nanoTime);
    }

    /**
     * A cache whose recency (LRU order, and ties of the hits-per-byte order) follows {@code nanoClock}, a monotonic
     * nanosecond clock; tests pass a manual one.
     */
    public CalcsparCache(Settings settings, LongSupplier nanoClock) {
        this.settings = settings;
        this.nanoClock = nanoClock;
        for (int i = 0; i < STRIPES; i++) {
            stripeLocks[i] = new Object();
        }
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
        FunctionCounter.builder("sluice.cache.evictions", evictions, LongAdder::sum)
                .description("cached ranges evicted")
                .register(registry);
        Gauge.builder("sluice.cache.bytes", this, CalcsparCache::heldBytes)
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("sluice.cache.ranges", this, c -> c.ranges())
                .description("cached ranges (prefetched blocks and keys admitted on misses)")
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
                heldBytes(),
                table,
                evictions.sum(),
                ranges());
    }

    /** The hotness table of a partition (for tests and the bench). */
    public HotnessTable hotness(String partition) {
        return view(partition).table;
    }

    /** Bytes held now: every range's arrays, overheads and overlay. */
    long heldBytes() {
        long n = 0;
        for (View v : views()) {
            for (CachedRange r : v.ranges.values()) {
                n += r.bytes();
            }
        }
        return n;
    }

    private long ranges() {
        long n = 0;
        for (View v : views()) {
            n += v.ranges.size();
        }
        return n;
    }

    private synchronized List<View> views() {
        return List.copyOf(viewList);
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
     * period on its own): decays every hotness table and range score, folds large overlays, then, in proactive mode,
     * spends one period's budget.
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
            ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sluice-prefetch-" + n.getAndIncrement());
                t.setDaemon(true);
                return t;
            });
            p.scheduleWithFixedDelay(
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
            prefetcher = p;
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
        List<View> vs = views();
        long overlay = 0;
        for (View v : vs) {
            v.table.decay();
            for (CachedRange r : v.ranges.values()) {
                r.decay(settings.alpha());
                if (r.overlay.size() > Math.max(8, r.entries() / 8)) {
                    r = merge(v, r);
                }
                overlay += r.overlay.bytes();
            }
        }
        overlayBytes = overlay;
        if (mode != CacheMode.PROACTIVE || closed) {
            return 0;
        }
        double budget = prefetchBudget * settings.periodMillis() / 1000.0;
        long spent = 0;
        Victims victims = null;
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
                spent += scanInto(v, r.first(), CachedRange.successor(r.last()), t.hotness(t.blockOf(r.first())));
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
                byte[] from = t.blockStart(b), to = t.blockEnd(b);
                if (v.cachedBlock(from, to)) {
                    continue;
                }
                if (victims == null) {
                    victims = new Victims(vs);
                }
                double hot = t.hotness(b);
                if (!victims.admit(hot / settings.blockBytes(), settings.blockBytes())) {
                    break; // the rest are colder still
                }
                v.recent.put(b, v.periods);
                spent += scanInto(v, from, to, hot);
            }
        }
        return spent;
    }

    /**
     * What a prefetch would evict under the proactive policy, for one period: the ranges by hits per byte, coldest
     * first. A block is admitted while the space is free or the ranges it displaces are clearly colder.
     */
    private final class Victims {
        private final double[] perByte;
        private final long[] bytes;
        private int next;
        private long free;

        Victims(List<View> vs) {
            List<CachedRange> all = new ArrayList<>();
            long held = 0;
            for (View v : vs) {
                for (CachedRange r : v.ranges.values()) {
                    all.add(r);
                    held += r.bytes();
                }
            }
            all.sort(Comparator.comparingDouble(r -> r.score() / r.bytes()));
            perByte = new double[all.size()];
            bytes = new long[all.size()];
            for (int i = 0; i < perByte.length; i++) {
                perByte[i] = all.get(i).score() / all.get(i).bytes();
                bytes[i] = all.get(i).bytes();
            }
            free = settings.capacityBytes() - held;
        }

        boolean admit(double candidatePerByte, long candidateBytes) {
            if (free >= candidateBytes) {
                free -= candidateBytes;
                return true;
            }
            int i = next;
            long got = free;
            double worst = 0;
            while (got < candidateBytes && i < perByte.length) {
                worst = Math.max(worst, perByte[i]);
                got += bytes[i++];
            }
            if (got < candidateBytes || worst * ADMIT_MARGIN >= candidatePerByte) {
                return false;
            }
            next = i;
            free = got - candidateBytes;
            return true;
        }
    }

    private long scanInto(View v, byte[] from, byte[] to, double score) {
        Fill f = new Fill(from, to);
        v.filling.add(f); // before the snapshot: a write from now on lands in f.overlay
        try {
            long stamp = writeSeq.get();
            CachedRange.Builder b = new CachedRange.Builder();
            long bytes;
            try {
                bytes = v.source.scan(
                        from.length == 0 ? null : from,
                        to,
                        MAX_ENTRIES_PER_SCAN,
                        settings.ioUnitBytes(),
                        (k, val) -> b.add(k, val));
            } catch (IllegalStateException e) {
                return 0; // the partition closed meanwhile
            }
            long units = Math.max(1, (bytes + settings.ioUnitBytes() - 1) / settings.ioUnitBytes());
            byte[] end = b.entries() >= MAX_ENTRIES_PER_SCAN ? CachedRange.successor(b.lastKey()) : to;
            install(v, b.build(from.clone(), end, f.overlay, true, score, nanoClock.getAsLong()), stamp, true);
            // counted once installed: a reader that sees the counters move finds the range in the cache (PrefetchTest
            // read between the two and missed, under a loaded verify)
            prefetchIos.add(units);
            prefetchBytes.add(bytes);
            prefetchedBlocks.increment();
            return units;
        } finally {
            v.filling.remove(f); // after the install: a write from now on finds the installed range
            evictIfFull();
        }
    }

    /**
     * Puts {@code r} in the space, unless the partition was invalidated after {@code stamp} or a write to the range
     * could not be read back. A block replaces every range it overlaps; a one-key range ({@code replace = false}) is
     * dropped if a range overlaps it. The caller then calls {@link #evictIfFull()}, holding no lock.
     */
    private boolean install(View v, CachedRange r, long stamp, boolean replace) {
        synchronized (v.installLock) {
            if (v.closed || closed || v.floor > stamp || r.overlay.poisoned()) {
                staleRefused.increment();
                return false;
            }
            Map.Entry<byte[], CachedRange> lower = v.ranges.lowerEntry(r.start);
            ConcurrentNavigableMap<byte[], CachedRange> inside =
                    r.end == null ? v.ranges.tailMap(r.start, true) : v.ranges.subMap(r.start, true, r.end, false);
            boolean lowerOverlaps = lower != null && lower.getValue().overlaps(r.start, r.end);
            if (!replace && (lowerOverlaps || !inside.isEmpty())) {
                return false;
            }
            if (lowerOverlaps) {
                v.remove(lower.getValue());
            }
            for (CachedRange o : List.copyOf(inside.values())) {
                v.remove(o);
            }
            v.ranges.put(r.start, r);
            arrayBytes.addAndGet(r.bytes() - r.overlay.bytes());
            return true;
        }
    }

    /** Folds {@code r}'s overlay into a new array (CPU only, no engine read) and installs it in r's place. */
    private CachedRange merge(View v, CachedRange r) {
        List<Map.Entry<CachedRange.Overlay.Key, byte[]>> folded = new ArrayList<>();
        CachedRange m = r.merged(folded);
        synchronized (v.installLock) {
            if (!v.ranges.replace(r.start, r, m)) {
                return r; // evicted or replaced meanwhile
            }
            arrayBytes.addAndGet((m.bytes() - m.overlay.bytes()) - (r.bytes() - r.overlay.bytes()));
        }
        // Only now: a reader still holding r finds its entry replaced and retries (View.lookup).
        for (Map.Entry<CachedRange.Overlay.Key, byte[]> e : folded) {
            m.overlay.removeIfSame(e.getKey(), e.getValue());
        }
        merges.increment();
        return m;
    }

    /** Evicts down to {@link #EVICT_TO} of the capacity when the space is over it: LRU when passive, else coldest. */
    private void evictIfFull() {
        if (arrayBytes.get() + overlayBytes <= settings.capacityBytes()) {
            return;
        }
        synchronized (evictLock) {
            record Held(View view, CachedRange range, long bytes, double perByte, long lastAccess) {}
            List<Held> all = new ArrayList<>();
            long held = 0, overlay = 0;
            for (View v : views()) {
                for (CachedRange r : v.ranges.values()) {
                    long b = r.bytes();
                    all.add(new Held(v, r, b, r.score() / b, r.lastAccessNanos()));
                    held += b;
                    overlay += r.overlay.bytes();
                }
            }
            overlayBytes = overlay;
            if (held <= settings.capacityBytes()) {
                return;
            }
            all.sort(
                    mode == CacheMode.PASSIVE
                            ? Comparator.comparingLong(Held::lastAccess)
                            : Comparator.comparingDouble(Held::perByte).thenComparingLong(Held::lastAccess));
            long target = (long) (settings.capacityBytes() * EVICT_TO);
            for (Held h : all) {
                if (held <= target) {
                    break;
                }
                synchronized (h.view.installLock) {
                    if (h.view.remove(h.range)) {
                        held -= h.bytes;
                        evictions.increment();
                    }
                }
            }
        }
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
        for (View v : views()) {
            v.clear();
        }
    }

    /** A block scan in progress over {@code [from, to)}: writes to its keys are recorded in its overlay. */
    private static final class Fill {
        final byte[] from;
        final byte[] to;
        final CachedRange.Overlay overlay = new CachedRange.Overlay();

        Fill(byte[] from, byte[] to) {
            this.from = from;
            this.to = to;
        }

        boolean covers(byte[] key) {
            return Arrays.compareUnsigned(from, key) <= 0 && (to == null || Arrays.compareUnsigned(key, to) < 0);
        }
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
        /** The cached ranges by start key; they never overlap (installs replace what they overlap). */
        private final ConcurrentSkipListMap<byte[], CachedRange> ranges =
                new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
        /** Block scans in progress. */
        private final Set<Fill> filling = ConcurrentHashMap.newKeySet();
        /** Serialises changes of {@link #ranges} (installs, merges, evictions, invalidateAll). */
        private final Object installLock = new Object();
        /** Block → period it was last prefetched in (prefetch thread only; bounded by the table size). */
        private final Map<Integer, Long> recent = new ConcurrentHashMap<>();

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

        /** True when a prefetched block covers all of {@code [from, to)}. */
        boolean cachedBlock(byte[] from, byte[] to) {
            Map.Entry<byte[], CachedRange> e = ranges.floorEntry(from);
            if (e == null || !e.getValue().block || !e.getValue().covers(from)) {
                return false;
            }
            byte[] end = e.getValue().end;
            return end == null || (to != null && Arrays.compareUnsigned(end, to) >= 0);
        }

        /** Removes {@code r} if it is still installed (caller holds installLock). */
        boolean remove(CachedRange r) {
            if (ranges.remove(r.start, r)) {
                arrayBytes.addAndGet(-(r.bytes() - r.overlay.bytes()));
                return true;
            }
            return false;
        }

        void clear() {
            synchronized (installLock) {
                for (CachedRange r : List.copyOf(ranges.values())) {
                    remove(r);
                }
            }
        }

        @Override
        public Cached lookup(byte[] key) {
            table.record(key);
            CacheMode m = mode;
            for (int attempt = 0; attempt < 3; attempt++) {
                Map.Entry<byte[], CachedRange> e = ranges.floorEntry(key);
                if (e == null || !e.getValue().covers(key)) {
                    break;
                }
                CachedRange r = e.getValue();
                byte[] value = r.get(key);
                if (ranges.get(r.start) != r) {
                    continue; // merged, evicted or replaced while we read it: its overlay may have moved on
                }
                r.touch(nanoClock.getAsLong());
                hits[m.ordinal()].increment();
                return new Cached(value);
            }
            misses[m.ordinal()].increment();
            return null;
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
            synchronized (stripeLocks[s]) {
                if (stripes.get(s) > stamp) {
                    staleRefused.increment(); // a write to the key (or one sharing its stripe) came after the read
                    return;
                }
                if (!install(this, CachedRange.single(key, value, nanoClock.getAsLong()), stamp, false)) {
                    return;
                }
            }
            evictIfFull();
        }

        @Override
        public void invalidate(byte[] key) {
            int s = stripe(key);
            synchronized (stripeLocks[s]) {
                stripes.set(s, writeSeq.incrementAndGet());
                List<CachedRange.Overlay> targets = new ArrayList<>(2);
                for (Fill f : filling) {
                    if (f.covers(key)) {
                        targets.add(f.overlay);
                    }
                }
                Map.Entry<byte[], CachedRange> e = ranges.floorEntry(key);
                CachedRange r = e != null && e.getValue().covers(key) ? e.getValue() : null;
                if (r != null) {
                    targets.add(r.overlay);
                }
                if (targets.isEmpty()) {
                    return;
                }
                byte[] now;
                try {
                    now = source.get(key);
                } catch (RuntimeException ex) {
                    // The write's outcome is unknown to the cache: nothing that may hold the old value answers.
                    for (CachedRange.Overlay o : targets) {
                        o.poison();
                    }
                    if (r != null) {
                        synchronized (installLock) {
                            remove(r);
                        }
                    }
                    return;
                }
                for (CachedRange.Overlay o : targets) {
                    o.put(key, now == null ? CachedRange.Overlay.ABSENT : now);
                }
            }
        }

        @Override
        public void invalidateAll() {
            floor = writeSeq.incrementAndGet();
            for (Fill f : filling) {
                f.overlay.poison();
            }
            clear();
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
