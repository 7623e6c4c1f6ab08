package dev.sluice.cache;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pure half of Calcspar's fluctuation-aware cache (§4.3, "Cache Integration"). Every tick it reads the I/O the
 * priority Env counted per class in the interval and turns it into I/O units per second (per class, {@code max(ops,
 * ⌈bytes / unit⌉)}; every I/O of at most one unit costs one, as in the Env's allocator):
 *
 * <ul>
 *   <li><b>Mode.</b> When the top-priority queue of the Calcspar allocator (WAL, user reads, META, flush, L0
 *       compaction) used more than {@code passiveThreshold} (95 %) of the paid tokens in a tick, the cache goes passive;
 *       it turns proactive again after {@code proactiveTicks} consecutive ticks at or below the threshold (Sluice's
 *       addition; 1 = the paper's rule, which switched the mode about every tick when the load alternated around the
 *       threshold). A change is one {@code SetCacheMode} action (a {@code ControlEvent}).
 *   <li><b>Prefetch budget.</b> In proactive mode the spare tokens, {@code share · (paid − all units used)}, go to the
 *       prefetcher (recorded when it changes by more than 10 %, or to or from zero); in passive mode, zero. The
 *       prefetcher counts a scan as scanned bytes / unit, but a range scan reads every level the range overlaps, so
 *       the grant is divided by {@link #prefetchCost()}: the Env's measured PREFETCH units per granted unit.
 *   <li><b>Layout.</b> When a partition's set of SST files changed (checked at most every {@code layoutPeriodNanos}),
 *       its hotness table is cut into blocks of the new files.
 *   <li><b>Re-warm.</b> Every {@code rewarmPeriodNanos} in proactive mode, the key ranges of the L0 and base-level (L1)
 *       files are handed to the prefetcher.
 * </ul>
 *
 * Without the priority Env (no per-class I/O) the tick sees no token use and the cache stays proactive.
 *
 * <p>Thread-safety: called only from the control plane's tick thread.
 */
final class CacheController implements ControlLoop {
    /** The Calcspar allocator's top queue ({@code IoPolicy.calcspar}'s tier 0). */
    static final Set<IoClass> TOP_QUEUE = EnumSet.of(
            IoClass.WAL, IoClass.USER_GET, IoClass.USER_SCAN, IoClass.META, IoClass.FLUSH, IoClass.COMPACTION_L0);

    private final String name;
    private final CacheActuator cache;
    private final double paidIops;
    private final long ioUnitBytes;
    private final double passiveThreshold;
    private final int proactiveTicks;
    private final double prefetchShare;
    private final long layoutPeriodNanos;
    private final long rewarmPeriodNanos;

    /** Upper bound of {@link #prefetchCost()}. */
    static final double MAX_PREFETCH_COST = 64;

    private CacheMode mode = CacheMode.PROACTIVE;
    /** Consecutive ticks with the top queue at or below the passive threshold. */
    private int calmTicks;

    private double budget = -1;
    private double prefetchCost = 1;
    private long lastTick = Long.MIN_VALUE;
    private long lastRewarm = Long.MIN_VALUE;
    private final Map<String, Long> layoutSignature = new HashMap<>();
    private final Map<String, Long> lastLayout = new HashMap<>();

    CacheController(
            String name,
            CacheActuator cache,
            double paidIops,
            long ioUnitBytes,
            double passiveThreshold,
            int proactiveTicks,
            double prefetchShare,
            long layoutPeriodNanos,
            long rewarmPeriodNanos) {
        if (proactiveTicks < 1) {
            throw new IllegalArgumentException("proactiveTicks must be ≥ 1, got " + proactiveTicks);
        }
        this.name = name;
        this.cache = cache;
        this.paidIops = paidIops;
        this.ioUnitBytes = ioUnitBytes;
        this.passiveThreshold = passiveThreshold;
        this.proactiveTicks = proactiveTicks;
        this.prefetchShare = prefetchShare;
        this.layoutPeriodNanos = layoutPeriodNanos;
        this.rewarmPeriodNanos = rewarmPeriodNanos;
    }

    @Override
    public String name() {
        return name;
    }

    CacheMode mode() {
        return mode;
    }

    /**
     * Device I/O units one unit of the prefetcher's own estimate costs, learnt from the Env's PREFETCH class (≥ 1;
     * an exponential average, weight 0.5, of measured / granted over the ticks in which the prefetcher read).
     */
    double prefetchCost() {
        return prefetchCost;
    }

    /** I/O units of one class in an interval: every I/O costs at least one unit. */
    long units(IoClassStats s) {
        long ops = Math.max(0, s.ops());
        long byUnits = s.bytes() <= 0 ? 0 : (s.bytes() + ioUnitBytes - 1) / ioUnitBytes;
        return Math.max(ops, byUnits);
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        long prev = lastTick;
        lastTick = nowNanos;
        if (prev != Long.MIN_VALUE && nowNanos > prev) {
            double seconds = (nowNanos - prev) / 1e9;
            IoStats d = snapshot.ioDelta();
            long top = 0, all = 0;
            for (IoClass c : IoClass.values()) {
                long u = units(d.get(c));
                all += u;
                if (TOP_QUEUE.contains(c)) {
                    top += u;
                }
            }
            double topShare = top / seconds / paidIops;
            boolean busy = topShare > passiveThreshold;
            calmTicks = busy ? 0 : Math.min(calmTicks + 1, proactiveTicks); // capped: a long calm cannot overflow
            CacheMode want = busy || mode == CacheMode.PASSIVE && calmTicks < proactiveTicks
                    ? CacheMode.PASSIVE
                    : CacheMode.PROACTIVE;
            if (want != mode) {
                mode = want;
                out.add(new CacheActions.SetCacheMode(
                        want,
                        busy
                                ? String.format(
                                        "top queue used %.0f%% of %.0f paid tokens/s (threshold %.0f%%)",
                                        100 * topShare, paidIops, 100 * passiveThreshold)
                                : String.format(
                                        "top queue at or below %.0f%% of %.0f paid tokens/s for %d tick(s), now"
                                                + " %.0f%%",
                                        100 * passiveThreshold, paidIops, calmTicks, 100 * topShare),
                        cache));
            }
            // The prefetcher counts a scan as its bytes / unit, but the engine reads every level the range
            // overlaps: calibrate by what the Env measured for PREFETCH against what the budget allowed.
            double prefetched = units(d.get(IoClass.PREFETCH)) / seconds;
            if (budget > 0 && prefetched > 0) {
                double ratio = Math.max(1, prefetched / budget);
                prefetchCost = Math.min(MAX_PREFETCH_COST, 0.5 * prefetchCost + 0.5 * ratio);
            }
            double spare = want == CacheMode.PASSIVE ? 0 : Math.max(0, prefetchShare * (paidIops - all / seconds));
            double grant = spare / prefetchCost;
            if (changed(budget, grant)) {
                budget = grant;
                out.add(new CacheActions.SetPrefetchBudget(
                        grant,
                        String.format(
                                "%.0f of %.0f paid units/s used, mode %s, %.1f device units per prefetch unit",
                                all / seconds, paidIops, want, prefetchCost),
                        cache));
            }
        }
        boolean rewarm = mode == CacheMode.PROACTIVE
                && (lastRewarm == Long.MIN_VALUE || nowNanos - lastRewarm >= rewarmPeriodNanos);
        if (rewarm) {
            lastRewarm = nowNanos;
        }
        for (LsmSnapshot p : snapshot.partitions().values()) {
            layout(p, nowNanos, out);
            if (rewarm) {
                List<CacheActuator.KeyRangeBytes> ranges = topRanges(p);
                if (!ranges.isEmpty()) {
                    out.add(new CacheActions.Rewarm(
                            p.partition(), ranges, "periodic re-warm of L0/L1 (Calcspar §4.3)", cache));
                }
            }
        }
        return out;
    }

    private static boolean changed(double old, double now) {
        if (old < 0) {
            return true;
        }
        if (old == 0 || now == 0) {
            return old != now;
        }
        return Math.abs(now - old) > 0.1 * old;
    }

    private void layout(LsmSnapshot p, long nowNanos, List<Action> out) {
        long sig = 1;
        int files = 0;
        for (LevelInfo l : p.levels()) {
            for (SstFile f : l.files()) {
                sig = sig * 1_000_003L + f.fileNumber();
                files++;
            }
        }
        Long old = layoutSignature.get(p.partition());
        Long at = lastLayout.get(p.partition());
        if ((old == null || old != sig) && (at == null || nowNanos - at >= layoutPeriodNanos)) {
            List<HotnessTable.Extent> ext = new ArrayList<>();
            for (LevelInfo l : p.levels()) {
                for (SstFile f : l.files()) {
                    if (f.smallestKey() != null && f.largestKey() != null) {
                        ext.add(new HotnessTable.Extent(f.smallestKey(), f.largestKey(), f.sizeBytes()));
                    }
                }
            }
            layoutSignature.put(p.partition(), sig);
            lastLayout.put(p.partition(), nowNanos);
            out.add(new CacheActions.SetBlockLayout(p.partition(), ext, files + " SST files (the set changed)", cache));
        }
    }

    /** The key ranges of L0 and of the base level (the smallest non-empty level above 0). */
    private static List<CacheActuator.KeyRangeBytes> topRanges(LsmSnapshot p) {
        List<CacheActuator.KeyRangeBytes> r = new ArrayList<>();
        int base = -1;
        for (LevelInfo l : p.levels()) {
            if (l.level() > 0 && !l.files().isEmpty()) {
                base = l.level();
                break;
            }
        }
        for (LevelInfo l : p.levels()) {
            if (l.level() == 0 || l.level() == base) {
                for (SstFile f : l.files()) {
                    if (f.smallestKey() != null && f.largestKey() != null) {
                        r.add(new CacheActuator.KeyRangeBytes(f.smallestKey(), f.largestKey()));
                    }
                }
            }
        }
        return r;
    }
}
