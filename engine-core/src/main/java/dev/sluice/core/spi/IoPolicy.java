package dev.sluice.core.spi;

import dev.sluice.core.sensor.IoClass;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * How the priority Env arbitrates I/O between classes at node level (docs/architecture.md §3.3). Classes are grouped into tiers
 * 0..{@value #MAX_TIERS}-1 (0 = most urgent); a policy decides which tier's waiting I/O goes next when the node budget
 * (or, for strict priority without a budget, the device) is contended. Set through {@link IoControl#setPolicy}.
 *
 * <p>Values are immutable; constructors validate and name the bad field. The factories give the papers' settings:
 * {@link #cruiseDb}, {@link #flexEngineNode} and {@link #calcspar}.
 */
public sealed interface IoPolicy
        permits IoPolicy.PassThrough, IoPolicy.StrictPriority, IoPolicy.WeightedFair, IoPolicy.TimeWindows {
    int MAX_TIERS = 4;

    /** Tier of every class (empty for {@link PassThrough}). */
    Map<IoClass, Integer> tiers();

    /** No node-level arbitration: only per-class caps ({@link IoControl#setClassLimit}) apply. */
    record PassThrough() implements IoPolicy {
        @Override
        public Map<IoClass, Integer> tiers() {
            return Map.of();
        }
    }

    /**
     * Strict priority with an anti-starvation bound (CruiseDB §VII): a tier's I/O goes only when no more urgent tier
     * has I/O waiting — and, without a node budget, none in flight — unless it has waited {@code starvationBound}.
     *
     * @param starvationBound longest wait before a lower tier goes regardless of priority; zero disables the bound
     * @param budget node token rate; {@link NodeBudget#UNLIMITED} means "priority by in-flight I/O" as described
     */
    record StrictPriority(Map<IoClass, Integer> tiers, Duration starvationBound, NodeBudget budget)
            implements IoPolicy {
        public StrictPriority {
            tiers = checkTiers(tiers);
            checkNonNegative("starvationBound", starvationBound);
            if (budget == null) {
                throw new IllegalArgumentException("budget must not be null (use NodeBudget.UNLIMITED)");
            }
        }
    }

    /**
     * Weighted fair sharing of a node budget (FlexEngine §4.2.3): tier 0 strict when {@code strictTopTier}, the other
     * tiers share what is left in proportion to {@code weights} (start-time fair queueing on bytes when the budget has
     * a byte rate, else on I/O units). Without a budget nothing is contended and every I/O goes at once.
     *
     * @param weights one positive weight per tier, index = tier
     */
    record WeightedFair(Map<IoClass, Integer> tiers, List<Double> weights, boolean strictTopTier, NodeBudget budget)
            implements IoPolicy {
        public WeightedFair {
            tiers = checkTiers(tiers);
            weights = List.copyOf(weights);
            if (weights.isEmpty() || weights.size() > MAX_TIERS) {
                throw new IllegalArgumentException("weights must have 1.." + MAX_TIERS + " entries, got " + weights);
            }
            for (double w : weights) {
                if (!(w > 0) || Double.isInfinite(w)) {
                    throw new IllegalArgumentException("weights must be positive and finite, got " + weights);
                }
            }
            for (Map.Entry<IoClass, Integer> e : tiers.entrySet()) {
                if (e.getValue() >= weights.size()) {
                    throw new IllegalArgumentException("tiers: " + e.getKey() + " is in tier " + e.getValue()
                            + " but weights has only " + weights.size() + " entries");
                }
            }
            if (budget == null) {
                throw new IllegalArgumentException("budget must not be null (use NodeBudget.UNLIMITED)");
            }
        }
    }

    /**
     * Calcspar's congestion-aware allocator (§4.1–4.2): {@code paidIops} tokens per second, refreshed each second and
     * never carried over. Tier 0 may take tokens during the whole second. Tier q &gt; 0 waits for its window, which
     * opens at {@code min(1 − minWindowFraction, D_q / paidIops)} of the second, {@code D_q} being the I/O units the more
     * urgent tiers asked for in the previous second (tail-aligned nested windows; the paper's example [0,1), [0.7,1),
     * [0.9,1) is high = 70 %, high + medium = 90 % of the paid IOPS); inside its window it takes only tokens beyond
     * {@code (1 − elapsed fraction) · D_q}, what the more urgent tiers are expected to need for the rest of the second.
     * An I/O costs one token per I/O unit (the device's {@code io.unit}, 256 KiB by default).
     *
     * <p>Approximation note: the paper gives the window size as allocated/paid without saying whose allocation; the
     * literal reading is "start at 1 − allocated/paid". With a queue's own allocation a busy low queue widens its own window,
     * and with any window alone a low queue drains the second's remaining tokens the moment its window opens, so later
     * top-tier I/O finds none (both measured in SchedulerTest's scenario: the low queue took 97 % of the tokens).
     * Deriving windows from the more urgent tiers' demand and reserving their pro-rata need fixes both.
     *
     * <p>Pacing (Sluice's addition, off in the paper's reading): with {@code pace} &gt; 0, by a point {@code f} into the
     * second at most {@code paidIops · (f + pace)} tokens have been granted. The paper refreshes the tokens once a
     * second; then one tier-0 burst (a flush or an L0 compaction, 256 KiB chunks at one token each) can take the whole
     * second's tokens at its start, and every user read after it waits for the next second. The second's total is
     * {@code paidIops} either way, so pacing keeps the contract. Measured on {@code calcspar-allocators}
     * (docs/benchmarks.md): per-second refill gave a read p99 of 355 ms where a continuously refilled bucket gave 3.3 ms.
     *
     * @param starvationBound optional bound after which a waiting lower tier ignores its window (zero = none, as in
     *     the paper)
     * @param pace burst allowance of the pacing, as time at the paid rate ({@link Duration#ZERO} = once-a-second
     *     refresh, the paper's literal reading)
     */
    record TimeWindows(
            Map<IoClass, Integer> tiers,
            double paidIops,
            double minWindowFraction,
            Duration starvationBound,
            Duration pace)
            implements IoPolicy {
        /** The paper's literal per-second refresh: no pacing. */
        public TimeWindows(
                Map<IoClass, Integer> tiers, double paidIops, double minWindowFraction, Duration starvationBound) {
            this(tiers, paidIops, minWindowFraction, starvationBound, Duration.ZERO);
        }

        public TimeWindows {
            tiers = checkTiers(tiers);
            if (!(paidIops > 0) || Double.isInfinite(paidIops)) {
                throw new IllegalArgumentException("paidIops must be positive and finite, got " + paidIops);
            }
            if (!(minWindowFraction >= 0 && minWindowFraction <= 1)) {
                throw new IllegalArgumentException("minWindowFraction must be in [0, 1], got " + minWindowFraction);
            }
            checkNonNegative("starvationBound", starvationBound);
            checkNonNegative("pace", pace);
            if (pace.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("pace must be at most 1 s (a second's tokens), got " + pace);
            }
        }
    }

    /**
     * The node's token rate: I/O units per second and/or bytes per second, counted over reads and writes, plus an
     * optional separate budget for written bytes; a value ≤ 0 or infinite means no limit on that dimension.
     *
     * <p>The write budget ({@code writeBytesPerSecond}) is a token bucket that only write I/O takes from (appends and
     * positioned writes: WAL, flush and compaction output; not reads, not syncs). Tier 0 writes take write tokens
     * without waiting for them (the bucket may go negative); writes of the other tiers wait until it is positive
     * again; reads never wait for write tokens. Set to the device's write bandwidth, it keeps the scheduler from
     * releasing more background writes than the device absorbs, which would otherwise queue ahead of the WAL in the
     * device (DEVICE.md in engine-ratelimit, "The write budget"). It does not by itself switch {@link StrictPriority}
     * out of its in-flight mode: only the ops and bytes rates count for {@link #isLimited()}.
     *
     * @param writeBytesPerSecond written bytes per second for the node; ≤ 0 or infinite = no write budget
     */
    record NodeBudget(double opsPerSecond, double bytesPerSecond, double writeBytesPerSecond) {
        public static final NodeBudget UNLIMITED = new NodeBudget(0, 0, 0);

        public NodeBudget {
            if (Double.isNaN(opsPerSecond) || Double.isNaN(bytesPerSecond) || Double.isNaN(writeBytesPerSecond)) {
                throw new IllegalArgumentException("NodeBudget rates must not be NaN, got ops/s " + opsPerSecond
                        + ", bytes/s " + bytesPerSecond + ", write bytes/s " + writeBytesPerSecond);
            }
        }

        /** A budget without a separate write budget. */
        public NodeBudget(double opsPerSecond, double bytesPerSecond) {
            this(opsPerSecond, bytesPerSecond, 0);
        }

        /** This budget with {@code bytesPerSecond} of write budget (≤ 0 = none). */
        public NodeBudget withWriteBytesPerSecond(double bytesPerSecond) {
            return new NodeBudget(opsPerSecond, this.bytesPerSecond, bytesPerSecond);
        }

        /** Whether the units or bytes rate (counted over reads and writes) is limited; the write budget is not. */
        public boolean isLimited() {
            return (opsPerSecond > 0 && !Double.isInfinite(opsPerSecond))
                    || (bytesPerSecond > 0 && !Double.isInfinite(bytesPerSecond));
        }

        /** Whether there is a write budget. */
        public boolean hasWriteBudget() {
            return writeBytesPerSecond > 0 && !Double.isInfinite(writeBytesPerSecond);
        }
    }

    static IoPolicy passThrough() {
        return new PassThrough();
    }

    /** CruiseDB §VII: user requests + WAL first, then flush and L0 compaction, then every other compaction. */
    static StrictPriority cruiseDb(Duration starvationBound) {
        return new StrictPriority(
                tierMap(
                        List.of(IoClass.WAL, IoClass.USER_GET, IoClass.USER_SCAN, IoClass.META),
                        List.of(IoClass.FLUSH, IoClass.COMPACTION_L0)),
                starvationBound,
                NodeBudget.UNLIMITED);
    }

    /** FlexEngine node level: foreground strict, flush:compaction 10:1, node token rate = device bandwidth. */
    static WeightedFair flexEngineNode(double deviceBytesPerSecond) {
        return new WeightedFair(
                tierMap(
                        List.of(IoClass.WAL, IoClass.USER_GET, IoClass.USER_SCAN, IoClass.META),
                        List.of(IoClass.FLUSH)),
                List.of(1.0, 10.0, 1.0),
                true,
                new NodeBudget(0, deviceBytesPerSecond));
    }

    /**
     * Calcspar: high = user I/O, WAL, metadata, flush and L0 compaction; medium = compactions into L1/L2; low = deeper
     * compactions and prefetch (§4.2, §4.4). Minimum window 10 % of a second, no starvation bound.
     */
    static TimeWindows calcspar(double paidIops) {
        return new TimeWindows(
                tierMap(
                        List.of(
                                IoClass.WAL,
                                IoClass.USER_GET,
                                IoClass.USER_SCAN,
                                IoClass.META,
                                IoClass.FLUSH,
                                IoClass.COMPACTION_L0),
                        List.of(IoClass.COMPACTION_HIGH)),
                paidIops,
                0.1,
                Duration.ZERO);
    }

    /** Tier 0 = {@code tier0}, tier 1 = {@code tier1}, every other class tier 2. */
    static Map<IoClass, Integer> tierMap(List<IoClass> tier0, List<IoClass> tier1) {
        EnumMap<IoClass, Integer> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            m.put(c, tier0.contains(c) ? 0 : tier1.contains(c) ? 1 : 2);
        }
        return m;
    }

    private static Map<IoClass, Integer> checkTiers(Map<IoClass, Integer> tiers) {
        if (tiers == null) {
            throw new IllegalArgumentException("tiers must not be null");
        }
        EnumMap<IoClass, Integer> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            Integer t = tiers.get(c);
            if (t == null) {
                throw new IllegalArgumentException("tiers: no tier for " + c + " (every IoClass needs one)");
            }
            if (t < 0 || t >= MAX_TIERS) {
                throw new IllegalArgumentException(
                        "tiers: " + c + " -> " + t + " is out of range 0.." + (MAX_TIERS - 1));
            }
            m.put(c, t);
        }
        return Collections.unmodifiableMap(m);
    }

    private static void checkNonNegative(String field, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(field + " must be a non-negative duration, got " + d);
        }
    }
}
