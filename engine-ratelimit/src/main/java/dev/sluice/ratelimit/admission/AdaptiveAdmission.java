package dev.sluice.ratelimit.admission;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.OpCounters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CruiseDB's adaptive admission controller (§V-A, §V-B, Eq. 2 and Eq. 3), one independent loop per partition.
 *
 * <h2>Phases</h2>
 *
 * <ol>
 *   <li><b>Warm-up.</b> The gate is open; the controller measures the mean in-scope throughput for {@code warmup.seconds}
 *       ("the initial value of t_k can be set to the average throughput practically measured in the initial phase
 *       without an admission"), then sets {@code t_0} to it. {@code initial.rate > 0} skips the measurement. If the
 *       watermark reaches {@code watermark.high} during warm-up, warm-up ends at once. The measurement starts with
 *       the first request in scope: an idle partition stays in warm-up, its gate open (since 2026-11-28; before, an
 *       idle start gave {@code t_0 = min.rate}); a warm-up whose mean is below {@code min.rate} (a trickle) starts
 *       over, unless the watermark reached {@code watermark.high}.
 *   <li><b>Feedback</b> (y_k &lt; y_h): once per control period ({@code period.seconds}), {@code e_k = y_k − target};
 *       {@code t_k = t_{k−1}·(1 − K1·e_k − K2·(e_k − e_{k−1}))} (Eq. 2), with y_k the watermark chosen by {@code
 *       watermark.source} ({@link WatermarkSource}: the memtable fill level, or memtables + L0 for the SP-LSM profile)
 *       at the period's end.
 *   <li><b>Conservative</b> (y_k ≥ y_h, checked at every tick): {@code t_k = min(T_c, t_{k−1}·max(0.5, 1 − K1·e_k))},
 *       T_c from Eq. 3 ({@link ConservativeRate}) using the read/write shares and request sizes of the last interval,
 *       the snapshot's read and write amplification, and the device throughput T_R / T_W (see below). The paper sets
 *       t_k = T_c; Sluice also never raises the rate here, and lowers it (by Eq. 2's proportional term, at most half)
 *       on entering the mode, at every tick the watermark still rises by more than {@link #CONSERVATIVE_RISE}, and,
 *       at or above halfway from the high watermark to full, at every tick its pace would fill the buffer within
 *       {@link #FULL_HORIZON_SECONDS} (or it is full), so an estimate above what the tree drains cannot hold the buffer
 *       full. While the watermark is high but flat or falling (a merge in progress drains it only
 *       when it completes) the rate holds: cutting at every such tick (until 2026-11-25) took the rate to {@code
 *       min.rate} while a merge was draining.
 * </ol>
 *
 * <h2>The device throughput of Eq. 3</h2>
 *
 * <p>The paper assumes a read/write throughput table measured on the device (§V-B). Sluice takes, per direction:
 *
 * <ol>
 *   <li>{@code device.read.mbps} / {@code device.write.mbps} when set (MiB/s: a calibration, or an emulated device's
 *       model);
 *   <li>otherwise the highest device throughput measured so far: every tick, the node's I/O bytes of the interval over
 *       all classes ({@link NodeSnapshot#ioDelta()}), per second, and the largest such value since the controller
 *       started. Reads and writes are counted together and Eq. 3 is applied with T_R = T_W = that peak, i.e. as one pipe
 *       that carries the amplified reads, the compaction writes and the compaction reads: the device has demonstrably
 *       carried that much, so the estimate is conservative (a lower bound of the device's capacity, the sense of the
 *       paper's "conservative"). With the priority Env every I/O is counted; without it, RocksDB Statistics give the WAL,
 *       flush and compaction bytes but not user reads, so the peak is lower and T_c more conservative still;
 *   <li>only when nothing was ever measured (no I/O counters at all — Sluice's own sampler always has Statistics or
 *       the Env — or no I/O yet), T_c falls back to half the current rate, the one case of a blind cut.
 * </ol>
 *
 * <p>Before this default (issue 22), no device numbers meant halving at every tick above the high watermark (a 10-s
 * stay cut the rate 1,000-fold), while Eq. 2 can at most double it per period.
 *
 * <h2>The control period</h2>
 *
 * <p>The paper adjusts the limit "every 0.4-million KV operations" (§VIII-D, Fig. 13), about every 10 s at the ~40 k
 * ops/s it measured. K1 and K2 are gains per period, so the period sets how hard Eq. 2 pushes: with a 1-s period a
 * watermark a few points above target for 20 s compounds 20 cuts of 2–3 % (−40 %), where the paper's period makes two.
 * Measured on cruise-a-variant (commit 61d9f8c): while a base-level compaction kept L0 from draining for ~30 s, the 1-s period
 * cut the rate from ~9 k to 4.4 k requests/s, and that dip set the run's P99 tail. Sluice's default period is 10 s of
 * time rather than 0.4 M operations, so that it does not stretch to minutes on a slow store; conservative mode is checked
 * at every tick regardless, so a fast rise to the high watermark is met at once.
 *
 * <h2>Sluice's additions (not in the paper)</h2>
 *
 * <ul>
 *   <li>Bounds: {@code t_k ≥ min.rate}; and when demand stays below the limit (the gate is not binding, so a low
 *       watermark says nothing about capacity), {@code t_k ≤ max.rate.factor × max(t_0, measured demand)} so the limit
 *       cannot drift towards infinity during a lull and then admit a flood.
 *   <li>Opening at once: when the gate holds requests back (some queued at the tick, or refused during it) while the
 *       watermark is at most half the target, and was so when Eq. 2 last adjusted (feedback mode; not right after a
 *       cut, when a draining buffer would make a doubling overshoot), nothing is near overflowing, so the limit is below what the tree takes
 *       (a step up in an open-loop load, a burst). The rate then doubles at the tick, up to {@code max.rate.factor ×}
 *       the offered load (admitted + refused), instead of waiting up to a period for Eq. 2's next step. Near or above
 *       the target, only Eq. 2 and T_c move the rate.
 *   <li>Climbing back after a conservative episode: below the high watermark, while the gate holds requests back and the
 *       watermark falls (or is at or below the target), the rate rises by {@link #RECOVERY_STEP} per tick towards
 *       min(T_c, the rate at entry) rather than by Eq. 2's few per cent per period (see {@code climbs}).
 *   <li>Raising while the buffer drains: below the target, when the watermark has fallen at each of the last {@code
 *       drain.ticks} (default {@value #DRAIN_TICKS}; 0 = never) ticks, by more than {@link #DRAIN_FALL} a second at
 *       their median, and the gate holds requests back, the rate is raised
 *       at every tick by Eq. 2's proportional term (×(1 − K1·e), e &lt; 0) instead of once per period, up to the rate
 *       before Eq. 2's last sequence of cuts began (a rate the tree took at a higher watermark). Measured on
 *       cruise-a-variant at 1,800 s (docs/benchmarks.md, 2026-11-26): after a deep compaction had blocked the
 *       memory→L1 merges and Eq. 2 had cut the rate to ~3,600 requests/s, the next merge drained the buffer from 77 %
 *       to 16 % over ~50 s while every client waited at the gate, and the rate rose only once per period; those
 *       seconds were the run's 25 slowest and set its P99 tail.
 *   <li>Raising while the buffer drains <i>above</i> the target (2026-11-26, {@code drain.horizon.seconds}, default
 *       {@value #DRAIN_HORIZON_SECONDS}; 0 = off): once the watermark has fallen at each of the last {@code
 *       drain.ticks} ticks, at a median pace that reaches the target within the horizon, with the gate binding, the
 *       merges' pace is estimated as that median fall per second plus the admitted writes' bytes per second (as
 *       fractions of the write-buffer budget), and the rate is raised to the one at which the buffer
 *       still falls fast enough to reach the target within the horizon: at most ×{@value #RECOVERY_STEP} a tick and
 *       up to the rate before Eq. 2's last cuts. The raise ends itself: the first tick the buffer no longer falls ends
 *       the run of draining ticks. While such a run lasts, Eq. 2's periodic cut is skipped. Measured on
 *       cruise-a-variant (docs/benchmarks.md, official run 5 and experiment 8): after a deep compaction had blocked
 *       the memory→L1 merges and Eq. 2 had cut the rate to ~3,300 requests/s, the next merge drained the buffer from
 *       79 % to 52 % in 22 s at about 1.2 points/s (about ten thousand writes a second) while the rate held at 3,344:
 *       Eq. 2's derivative term, meant for this, gives ×0.99 at the defaults. Those seconds set the run's P99 tail.
 *   <li>Room before full ({@code conservative.horizon.seconds}, default 0 = off, T_c as the paper): above the high
 *       watermark, while the buffer, at the pace it rose during the last tick, would not be full within the horizon,
 *       the rate holds where it was instead of dropping to T_c (on entering too); once it would be, the rules above
 *       apply (T_c, the entry cut, the cuts near full). Measured on cruise-a-variant (docs/benchmarks.md, experiment
 *       13): the P99 tail of the stacks with ratio 1.5 and the budget was set by three or four conservative episodes
 *       a run in which the buffer rose from 80 % to 81–87 % at under half a point a second and fell back when a
 *       memory→L1 merge ended, while T_c held writes at ~2,600/s against ~4,500 before: the cut made the buffer rise a
 *       little slower but could not bring the merge's end nearer. On the SP-LSM profile a full unmerged buffer does
 *       not stall writes either (it counts L0, whose stop trigger is 200 files); it means more L0 files for reads to
 *       skip and a longer next merge. While there is room and the watermark fell at this tick with the gate binding (a
 *       merge drains the buffer), a rate cut earlier in the episode climbs back by {@link #RECOVERY_STEP} a tick
 *       towards the rate at entry, where the paper never raises the rate above the high watermark: in experiment 14
 *       a cut at 90 % held writes at 2,672/s for 12 s while a merge drained the buffer from 89 % to 80 %.
 *   <li>A ceiling from the levels' debt ({@code debt.window.seconds}, default 0 = off; see {@link #debtStep}): the
 *       buffer Eq. 2 watches can sit at its target while the levels below it fall behind, so when the bytes above
 *       target in the levels between L0 and the last grow over the window, the rate's ceiling steps down below what
 *       was admitted, and steps back up (then is lifted) once they stop growing.
 *   <li>The Eq. 2 multiplier is clamped to [0.1, 2] per tick, so one wild sample cannot zero the rate.
 *   <li>Anti-windup: when Eq. 2 cuts the rate and the gate was not binding (demand below the limit), the cut applies to
 *       max(this interval's demand, its moving average) instead of the unreached limit. Without it a limit left high
 *       by a fast start (t_0 is measured on a small tree) took ~20 ticks of 8 % cuts to reach the load at all, while the
 *       watermark overshot (measured on cruise-a-variant).
 *   <li>Read amplification: measured by the priority Env in bytes; when unknown, estimated as {@code 1 + L0 files +
 *       non-empty levels} (one probe per sorted run).
 *   <li>An action is emitted only when the rate moves by more than {@code change.threshold} (relative) or the mode
 *       changes, so the event log shows decisions rather than noise.
 * </ul>
 *
 * <p>Pure: no clock, no threads, no engine; time arrives as {@code nowNanos}. Not thread-safe (the control plane calls it
 * from one thread).
 */
public final class AdaptiveAdmission implements ControlLoop {
    /** Options, validated by the provider. */
    public record Settings(
            double k1,
            double k2,
            double targetWatermark,
            double highWatermark,
            double initialRate,
            long warmupNanos,
            double minRate,
            double maxRateFactor,
            double deviceReadBytesPerSecond,
            double deviceWriteBytesPerSecond,
            AdmissionScope scope,
            double changeThreshold,
            WatermarkSource watermarkSource,
            long periodNanos,
            int drainTicks,
            double drainHorizonSeconds,
            double conservativeHorizonSeconds,
            double debtWindowSeconds) {}

    public enum Mode {
        WARMUP,
        FEEDBACK,
        CONSERVATIVE
    }

    /** Per-partition state; exposed read-only for tests and status pages. */
    public static final class State {
        Mode mode = Mode.WARMUP;
        long warmupStart = Long.MIN_VALUE;
        long warmupOps;
        long warmupNanos;
        double t0;
        double rate = Double.POSITIVE_INFINITY;
        double applied = Double.POSITIVE_INFINITY;
        double previousError;
        /** The watermark at the previous tick (NaN before the first). */
        double previousWatermark = Double.NaN;

        double demandEwma;
        long periodOps;
        long periodNanos;
        /** Where the last T_c's device throughput came from, for the event's reason. */
        String tcSource = "";
        /** The rate just before conservative mode was last entered (NaN before the first episode). */
        double entryRate = Double.NaN;
        /** T_c at the last conservative tick (NaN before the first episode). */
        double lastTc = Double.NaN;
        /** Left conservative mode with the rate below its ceiling (see {@link #RECOVERY_STEP}). */
        boolean recovering;
        /** Consecutive ticks, up to this one, at which the watermark fell. */
        int drainingTicks;
        /** The watermark's fall per second at each of the last (up to {@link #DRAIN_WINDOW}) of those ticks. */
        final ArrayDeque<Double> falls = new ArrayDeque<>();
        /** The rate before the last sequence of Eq. 2 cuts began (NaN before the first cut). */
        double cutFrom = Double.NaN;
        /** Eq. 2's last adjustment was a cut. */
        boolean cutting;

        /** Seconds since the controller first saw this partition (the sum of the snapshots' intervals). */
        double clock;
        /** In-scope requests admitted since the controller first saw this partition. */
        long admittedTotal;
        /** (clock, levels' excess bytes, admittedTotal) at each tick of the last {@code debt.window.seconds}. */
        final ArrayDeque<double[]> debt = new ArrayDeque<>();
        /** Time since the debt ceiling was last evaluated. */
        long debtNanos;
        /** The debt ceiling (requests/s; +inf = none): see {@link #debtStep}. */
        double debtCeiling = Double.POSITIVE_INFINITY;

        /** The ceiling the levels' debt sets on the rate (+inf when none). */
        public double debtCeiling() {
            return debtCeiling;
        }

        public Mode mode() {
            return mode;
        }

        public double rate() {
            return rate;
        }

        public double initialRate() {
            return t0;
        }
    }

    /**
     * In conservative mode the rate is cut below T_c only while the watermark rises by more than this per tick (or on
     * entering the mode, or near full: see {@link #FULL_HORIZON_SECONDS}).
     */
    static final double CONSERVATIVE_RISE = 0.005;

    /**
     * At or above halfway from the high watermark to full, the rate is also cut while the watermark rises fast enough to
     * reach full within this many seconds.
     */
    static final double FULL_HORIZON_SECONDS = 10;

    /**
     * After a conservative episode, the factor by which the rate climbs back per tick while the gate holds requests back
     * and the watermark, below high, falls or is at or below the target, up to min(T_c, the rate at entry).
     */
    static final double RECOVERY_STEP = 1.5;

    /**
     * The default of {@code drain.horizon.seconds}: above the target, a buffer that drains tick after tick with the gate
     * binding may take a rate at which it still reaches the target within this many seconds (see the class comment).
     */
    public static final double DRAIN_HORIZON_SECONDS = 30;

    /**
     * Below the target, the buffer counts as draining when the watermark fell at each of the last {@code drain.ticks}
     * ticks and by more than this per second at the median of those ticks (at most the last {@link #DRAIN_WINDOW}; above
     * the target the median must instead reach the target within {@code drain.horizon.seconds}). The median, not each
     * tick: a merge that drains the buffer steadily at ~0.6 points a second showed ticks of 0.2–1.0 points (official
     * run 6, docs/benchmarks.md), and a rule that asked every tick for more than half a point waited 20 s to act; a
     * flush or a merge's end, one step down, is one tick and does not move the median.
     */
    static final double DRAIN_FALL = 0.005;

    /** How many of the latest falling ticks the median fall is taken over. */
    static final int DRAIN_WINDOW = 10;

    /**
     * The default of {@code drain.ticks}: below the target, after this many consecutive draining ticks with the gate
     * binding, Eq. 2's proportional raise applies at every tick (see the class comment). One or two ticks can be a flush
     * or a merge's end, which empty the buffer in a step and would make a raise overshoot; a merge that drains it
     * steadily falls tick after tick.
     */
    public static final int DRAIN_TICKS = 3;

    /**
     * With {@code debt.window.seconds}: the levels' excess must have grown by at least this much over the window (by
     * its least-squares slope times the window) for the ceiling to come down, so that compactions starting and ending
     * within the window (the excess moving up and down by hundreds of MiB) do not move it. A lasting step up is
     * growth, and counts as such while the window holds both sides of it.
     */
    static final double DEBT_GROWTH_BYTES = 64.0 * (1 << 20);

    /**
     * The debt ceiling's step, once every quarter of {@code debt.window.seconds}: down while the excess grows, up while
     * it does not. The window looks back over ticks from before the last steps, so a step per Eq. 2 period would keep
     * cutting for a whole window after the cuts had taken effect (3 % per 10 s is −60 % in 300 s); four steps per
     * window bound that to about −15 %.
     */
    static final double DEBT_STEP = 0.04;

    /** The debt ceiling is lifted once it is this far above the rate admitted over the window (it no longer binds). */
    static final double DEBT_LIFT = 1 + 5 * DEBT_STEP;

    private final String name;
    private final Settings s;
    private final Map<String, State> states = new HashMap<>();
    /** Highest node I/O throughput measured so far, bytes/s (0 = none measured). */
    private double measuredBytesPerSecond;

    public AdaptiveAdmission(String name, Settings settings) {
        this.name = name;
        this.s = settings;
    }

    @Override
    public String name() {
        return name;
    }

    /** The settings the provider parsed from the options. */
    Settings settings() {
        return s;
    }

    public State state(String partition) {
        return states.get(partition);
    }

    /** The highest device throughput measured so far (bytes/s, reads and writes together; 0 = none yet). */
    public double measuredDeviceBytesPerSecond() {
        return measuredBytesPerSecond;
    }

    /** {@inheritDoc} */
    @Override
    public void forget(String partition) {
        states.remove(partition);
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        measure(snapshot);
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot ls : snapshot.partitions().values()) {
            State st = states.computeIfAbsent(ls.partition(), k -> new State());
            Action a = step(ls, st);
            if (a != null) {
                out.add(a);
            }
        }
        return out;
    }

    /** Updates the peak device throughput from the node's I/O during this tick's interval. */
    private void measure(NodeSnapshot snapshot) {
        IoStats d = snapshot.ioDelta();
        if (d == null || d.source() == IoStats.Source.NONE) {
            return;
        }
        long interval = 0;
        for (LsmSnapshot ls : snapshot.partitions().values()) {
            interval = Math.max(interval, ls.intervalNanos());
        }
        if (interval <= 0) {
            return;
        }
        double perSecond = d.bytes(IoClass.values()) / (interval / 1e9);
        measuredBytesPerSecond = Math.max(measuredBytesPerSecond, perSecond);
    }

    private long inScope(OpCounters c) {
        return s.scope() == AdmissionScope.ALL ? c.total() : c.writes();
    }

    private Action step(LsmSnapshot ls, State st) {
        if (ls.intervalNanos() <= 0) {
            return null; // first snapshot: no rates yet
        }
        double y = s.watermarkSource().of(ls);
        boolean fell = !Double.isNaN(st.previousWatermark) && y < st.previousWatermark;
        if (!fell) {
            st.drainingTicks = 0;
            st.falls.clear();
        } else {
            st.drainingTicks++;
            st.falls.addLast((st.previousWatermark - y) / (ls.intervalNanos() / 1e9));
            if (st.falls.size() > DRAIN_WINDOW) {
                st.falls.removeFirst();
            }
        }
        String debt = s.debtWindowSeconds() > 0 ? debtStep(ls, st) : null;
        try {
            Action a = step(ls, st, y);
            if (debt != null && st.mode != Mode.WARMUP) {
                if (a instanceof Action.SetAdmissionRate r) {
                    return new Action.SetAdmissionRate(r.partition(), r.requestsPerSecond(), r.reason() + "; " + debt);
                }
                if (a == null && st.rate > st.debtCeiling) {
                    return emit(ls, st, st.mode, debt);
                }
            }
            return a;
        } finally {
            st.previousWatermark = y;
        }
    }

    /**
     * The debt ceiling ({@code debt.window.seconds} &gt; 0; a Sluice addition, not in the paper). Eq. 2 holds SP-LSM's
     * buffer at its target, but the buffer says nothing about the levels below it: over 1,800 s of cruise-a-variant
     * (docs/benchmarks.md, run 5) the bytes the levels between L0 and the last one held above their targets grew from
     * 0.68 to 0.97 GiB over the second half while the buffer stayed near 60 %, because the rate Eq. 2 settles at is
     * what the memory→L1 merges take, not what the deeper compactions behind them take. So, every quarter of the window,
     * once a full window of ticks is in: when that excess grew over the window by at least {@link #DEBT_GROWTH_BYTES}
     * (the least-squares slope times the window), the ceiling becomes {@link #DEBT_STEP} below the lower of itself and
     * the rate admitted over the window; when it did not grow, the ceiling rises by the same step and is lifted once it
     * is {@link #DEBT_LIFT} times that admitted rate. The rate never exceeds the ceiling.
     *
     * @return the reason to emit when this tick moved the ceiling below the rate, else null
     */
    private String debtStep(LsmSnapshot ls, State st) {
        st.clock += ls.intervalNanos() / 1e9;
        st.admittedTotal += inScope(ls.opsDelta());
        st.debt.addLast(new double[] {st.clock, LevelInfo.excessBytes(ls.levels()), st.admittedTotal});
        double window = s.debtWindowSeconds();
        while (st.debt.size() > 2 && st.clock - st.debt.peekFirst()[0] > window) {
            st.debt.removeFirst();
        }
        st.debtNanos += ls.intervalNanos();
        if (st.debtNanos < window / 4 * 1e9 || st.mode == Mode.WARMUP) {
            return null;
        }
        st.debtNanos = 0;
        double[] first = st.debt.peekFirst(), last = st.debt.peekLast();
        double span = last[0] - first[0];
        if (span < 0.9 * window) {
            return null; // not a full window yet
        }
        double admitted = (last[2] - first[2]) / span;
        double growth = slope(st.debt) * span;
        double was = st.debtCeiling;
        if (growth >= DEBT_GROWTH_BYTES) {
            st.debtCeiling = Math.max(s.minRate(), Math.min(st.debtCeiling, admitted) * (1 - DEBT_STEP));
        } else if (!Double.isInfinite(st.debtCeiling)) {
            st.debtCeiling *= 1 + DEBT_STEP;
            if (st.debtCeiling > DEBT_LIFT * admitted) {
                st.debtCeiling = Double.POSITIVE_INFINITY;
            }
        }
        if (st.debtCeiling >= was) {
            return null;
        }
        return String.format(
                "levels over target by %.0f MiB, +%.0f MiB over the last %.0f s: debt ceiling %.0f/s (%.0f/s admitted"
                        + " over the window, -%.0f%%; debt.window.seconds)",
                last[1] / (1 << 20), growth / (1 << 20), span, st.debtCeiling, admitted, 100 * DEBT_STEP);
    }

    /** Least-squares slope of the samples' second column against their first (per second). */
    private static double slope(ArrayDeque<double[]> samples) {
        int n = samples.size();
        double mt = 0, my = 0;
        for (double[] x : samples) {
            mt += x[0];
            my += x[1];
        }
        mt /= n;
        my /= n;
        double num = 0, den = 0;
        for (double[] x : samples) {
            num += (x[0] - mt) * (x[1] - my);
            den += (x[0] - mt) * (x[0] - mt);
        }
        return den == 0 ? 0 : num / den;
    }

    private Action step(LsmSnapshot ls, State st, double y) {
        Mode before = st.mode;
        String reason;
        if (st.mode == Mode.WARMUP) {
            if (s.initialRate() > 0) {
                st.t0 = s.initialRate();
                reason = "t_0 = initial.rate";
            } else {
                long ops = inScope(ls.opsDelta());
                if (ops == 0 && st.warmupOps == 0 && y < s.highWatermark()) {
                    // No load yet: an idle stretch measures nothing, and counting it started an idle partition at
                    // min.rate (100/s), which a first burst then met (a probe of the Cassandra plugin, 2026-11-28:
                    // tables created on an idle node capped the node's CQL requests at 100/s each). The warm-up
                    // starts with the first request in scope.
                    return null;
                }
                st.warmupOps += ops;
                st.warmupNanos += ls.intervalNanos();
                boolean done = st.warmupNanos >= s.warmupNanos() || y >= s.highWatermark();
                if (!done) {
                    return null;
                }
                if (y < s.highWatermark() && st.warmupOps / (st.warmupNanos / 1e9) < s.minRate()) {
                    // A trickle (below min.rate) measures demand, not capacity: t_0 from it capped the rate at
                    // max.rate.factor × min.rate, and the first real load met -BUSY for seconds while the rate doubled
                    // tick by tick (a probe of the server, 2026-11-28: one SET in the warm-up, then redis-benchmark got
                    // "admission would wait over 1000 ms at 200 requests/s"). The warm-up starts over, the gate open.
                    st.warmupOps = 0;
                    st.warmupNanos = 0;
                    return null;
                }
                st.t0 = Math.max(s.minRate(), st.warmupOps / (st.warmupNanos / 1e9));
                st.demandEwma = st.warmupOps / (st.warmupNanos / 1e9);
                reason = String.format("t_0 = mean unthrottled throughput over %.1f s", st.warmupNanos / 1e9);
            }
            st.periodOps = 0;
            st.periodNanos = 0;
            st.rate = st.t0;
            st.previousError = y - s.targetWatermark();
            st.mode = Mode.FEEDBACK;
            if (y >= s.highWatermark()) {
                st.entryRate = st.rate;
                st.lastTc = conservative(ls, st);
                st.rate = Math.min(st.rate, st.lastTc);
                st.mode = Mode.CONSERVATIVE;
                reason += String.format(
                        "; watermark %.0f%% >= %.0f%%: T_c%s", 100 * y, 100 * s.highWatermark(), st.tcSource);
            }
        } else if (y >= s.highWatermark()) {
            // T_c, but never above the current rate, and lower at every tick the watermark stays high: by at least Eq.
            // 2's proportional step (1 − K1·e), at most half, so a T_c that overestimates the device still ends.
            double prev = Double.isInfinite(st.rate) ? st.t0 : st.rate;
            double step = prev * Math.max(0.5, 1 - s.k1() * (y - s.targetWatermark()));
            double tc = conservative(ls, st);
            // Held at T_c (the paper's t_k = T_c) while the buffer is not filling: a merge in progress keeps the
            // watermark high but flat until it completes, and cutting at every such tick took the rate from 14,000
            // to min.rate in 25 s while the merge was draining (cruisedb-c16, docs/benchmarks.md). Cut further only
            // on entering, while the watermark still rises, or near full.
            boolean entering = before != Mode.CONSERVATIVE;
            if (entering) {
                st.entryRate = prev;
            }
            st.lastTc = tc;
            st.recovering = false;
            boolean rising = Double.isNaN(st.previousWatermark) || y > st.previousWatermark + CONSERVATIVE_RISE;
            // Near full (at or above halfway from high to full), cut while the watermark, at this tick's pace, would
            // reach full within FULL_HORIZON_SECONDS. Until 2026-11-25 every tick near full cut (x0.8), flat or not:
            // cruisedb-c16 crept from 90.3 % to 91.5 % in 8 s (a merge running) while the rate fell from 5,700 to 720.
            double risePerSecond =
                    Double.isNaN(st.previousWatermark) ? 0 : (y - st.previousWatermark) / (ls.intervalNanos() / 1e9);
            boolean nearFull = y >= (1 + s.highWatermark()) / 2 - 1e-9
                    && (y >= 1 - 1e-9 || risePerSecond * FULL_HORIZON_SECONDS >= 1 - y);
            // Room ahead (conservative.horizon.seconds > 0, a Sluice addition): at this tick's pace the buffer is
            // not full within the horizon, so the rate holds, T_c or not (see the class comment).
            double horizon = s.conservativeHorizonSeconds();
            boolean room = horizon > 0
                    && !Double.isNaN(st.previousWatermark)
                    && y < 1
                    && Math.max(0, risePerSecond) * horizon < 1 - y;
            if (room) {
                // Falling with the gate binding: a merge drains the buffer, so a rate cut earlier in the episode
                // climbs back towards the rate at entry (x RECOVERY_STEP a tick) instead of waiting below the high
                // watermark (experiment 14: 12 s at the cut rate while the buffer fell from 89 % to 80 %).
                boolean binding = binding(ls);
                boolean climb = st.drainingTicks > 0 && binding && !Double.isNaN(st.entryRate) && prev < st.entryRate;
                st.rate = climb ? Math.min(st.entryRate, prev * RECOVERY_STEP) : prev;
                st.previousError = y - s.targetWatermark();
                st.mode = Mode.CONSERVATIVE;
                restartPeriod(st);
                String what = climb
                        ? String.format(
                                "falling, raised x%.2f towards %.0f/s (the rate at entry)",
                                st.rate / prev, st.entryRate)
                        : String.format("held at %.0f/s", prev);
                return emit(
                        ls,
                        st,
                        before,
                        String.format(
                                "watermark %.0f%% >= %.0f%%: %s, not T_c = %.0f/s%s: at %+.2f points/s the buffer is"
                                        + " not full within %.0f s (conservative.horizon.seconds)",
                                100 * y, 100 * s.highWatermark(), what, tc, st.tcSource, 100 * risePerSecond, horizon));
            }
            if (!entering && !rising && !nearFull) {
                step = prev;
                st.tcSource += String.format(
                        "; held (watermark %+.1f points since the last tick)", 100 * (y - st.previousWatermark));
            } else if (step < tc) {
                st.tcSource += String.format(" above the step x%.2f", step / prev);
            }
            st.rate = Math.min(tc, step);
            st.previousError = y - s.targetWatermark();
            st.mode = Mode.CONSERVATIVE;
            st.periodOps = 0; // the next feedback period starts now
            st.periodNanos = 0;
            reason = String.format(
                    "watermark %.0f%% >= %.0f%%: conservative T_c%s", 100 * y, 100 * s.highWatermark(), st.tcSource);
        } else {
            st.periodOps += inScope(ls.opsDelta());
            st.periodNanos += ls.intervalNanos();
            // The gate holds requests back (queued or refused) while the buffer is far below its target: nothing
            // overflows, so the limit is below what the tree takes. Open at once rather than wait for the period.
            boolean binding = binding(ls);
            // Only from a calm buffer: in feedback mode, and already at most half the target when Eq. 2 last
            // adjusted. Coming out of a cut (conservative mode, or a period that ended high) the buffer drains fast and
            // a doubling would overshoot it (measured: AdmissionFloodTest's flood oscillated 0.06 -> 0.97).
            boolean calm = st.mode == Mode.FEEDBACK && st.previousError <= -s.targetWatermark() / 2;
            if (before == Mode.CONSERVATIVE) {
                st.recovering = true;
            }
            if (st.recovering && climbs(st, y, binding)) {
                return climb(ls, st, y, before);
            }
            if (binding && calm && y <= s.targetWatermark() / 2 && !Double.isInfinite(st.rate)) {
                double offered = (inScope(ls.opsDelta()) + ls.opsDelta().rejected()) / (ls.intervalNanos() / 1e9);
                double opened = Math.min(2 * st.rate, s.maxRateFactor() * Math.max(st.t0, offered));
                if (opened > st.rate * (1 + s.changeThreshold())) {
                    st.demandEwma = Math.max(st.demandEwma, offered); // the cap below follows the offered load
                    reason = String.format(
                            "gate binding (%d queued, %d refused, offered %.0f/s) with the watermark at %.0f%%"
                                    + " (<= half the target): x%.2f",
                            ls.admissionQueued(), ls.opsDelta().rejected(), offered, 100 * y, opened / st.rate);
                    st.rate = opened;
                    st.mode = Mode.FEEDBACK;
                    return emit(ls, st, before, reason);
                }
            }
            // One streak test and one median for both drain rules (below the target, above it).
            boolean streak = s.drainTicks() > 0 && st.drainingTicks >= s.drainTicks();
            double fall = streak ? medianFall(st) : 0;
            if (binding
                    && streak
                    && fall > DRAIN_FALL
                    && y < s.targetWatermark()
                    && !Double.isNaN(st.cutFrom)
                    && st.rate < st.cutFrom) {
                double e = y - s.targetWatermark();
                double was = st.rate;
                st.rate = Math.min(st.cutFrom, st.rate * (1 - s.k1() * e));
                reason = String.format(
                        "watermark %.0f%% below the target and falling for %d ticks (%+.1f points) with the gate"
                                + " binding: x%.3f (Eq. 2's proportional step at every tick while the buffer drains,"
                                + " up to %.0f/s, the rate before Eq. 2's last cuts)",
                        100 * y, st.drainingTicks, 100 * (y - st.previousWatermark), st.rate / was, st.cutFrom);
                st.mode = Mode.FEEDBACK;
                restartPeriod(st);
                return emit(ls, st, before, reason);
            }
            // Above the target: fell at each of the last drain.ticks ticks, and at their median pace on course to reach
            // the target within the horizon. No threshold on the fall here (the rule below the target has one): a
            // steady 0.5-point/s drain from 64 % is on course within 30 s, and Eq. 2 cut twice during one in experiment
            // 10 (docs/benchmarks.md).
            boolean drainingAbove = s.drainHorizonSeconds() > 0
                    && streak
                    && y >= s.targetWatermark()
                    && fall * s.drainHorizonSeconds() >= y - s.targetWatermark();
            if (drainingAbove && binding && !Double.isNaN(st.cutFrom) && st.rate < st.cutFrom) {
                double raised = drainRaise(ls, st, y, fall);
                if (raised > st.rate * (1 + s.changeThreshold())) {
                    double was = st.rate;
                    st.rate = raised;
                    st.mode = Mode.FEEDBACK;
                    restartPeriod(st);
                    return emit(
                            ls,
                            st,
                            before,
                            String.format(
                                    "watermark %.0f%% above the target but falling for %d ticks (%.2f points/s) with"
                                            + " the gate binding: x%.3f, a rate at which it still reaches the target"
                                            + " within %.0f s (up to x%.1f a tick and %.0f/s, the rate before Eq. 2's"
                                            + " last cuts)",
                                    100 * y,
                                    st.drainingTicks,
                                    100 * fall,
                                    st.rate / was,
                                    s.drainHorizonSeconds(),
                                    RECOVERY_STEP,
                                    st.cutFrom));
                }
            }
            if (st.periodNanos < s.periodNanos()) {
                return null; // Eq. 2 adjusts once per period
            }
            double demand = st.periodOps / (st.periodNanos / 1e9);
            st.demandEwma = st.demandEwma == 0 ? demand : 0.7 * st.demandEwma + 0.3 * demand;
            st.periodOps = 0;
            st.periodNanos = 0;
            double e = y - s.targetWatermark();
            double factor = 1 - s.k1() * e - s.k2() * (e - st.previousError);
            factor = Math.max(0.1, Math.min(2.0, factor));
            if (factor < 1 && drainingAbove) {
                // The buffer already drains, tick after tick: a cut now only lowers the rate the drain rule above
                // then has to climb back from (cruise-a-variant official run 5: held at 3,344/s for 22 s while the
                // buffer fell from 79 % to 52 %).
                st.previousError = e;
                return null;
            }
            // Anti-windup: a cut starts from what is actually admitted, not from a limit the load never reached.
            double base = factor < 1 ? Math.min(st.rate, Math.max(demand, st.demandEwma)) : st.rate;
            if (factor < 1 && !st.cutting) {
                st.cutFrom = base; // the first cut of a sequence: the ceiling of a raise while the buffer drains
            }
            st.cutting = factor < 1;
            st.rate = Math.max(1, base) * factor;
            st.previousError = e;
            st.mode = Mode.FEEDBACK;
            reason = String.format("watermark %.0f%%, e=%+.2f: x%.3f (Eq. 2)", 100 * y, e, factor);
        }
        return emit(ls, st, before, reason);
    }

    /**
     * Leaving conservative mode: the paper continues Eq. 2 from t_k = T_c, but Sluice's cuts below T_c (near full, or
     * while the watermark rose) can leave the rate far below it. Measured (cruisedb-c16, docs/benchmarks.md): the rate
     * sat at 480-640 requests/s for 35 s while the watermark fell from 88 % to 3 %, since Eq. 2 raises it by a few
     * per cent per 10-s period. So while the gate holds requests back and the watermark falls (or is at or below the
     * target: the buffer has room), the rate climbs by {@link #RECOVERY_STEP} per tick towards min(T_c at the last
     * conservative tick, the rate that entered the mode). The climb ends at that ceiling, with the gate idle, or at the
     * first tick the watermark is above the target and not falling; Eq. 2 then takes over. A new episode during a climb
     * records the rate reached as its entry rate, so repeated episodes lower the ceiling (Eq. 2 may raise the rate past
     * it once the climb has ended).
     *
     * @return whether this tick climbs; false ends the climb (Eq. 2 takes this tick)
     */
    private boolean climbs(State st, double y, boolean binding) {
        double ceiling = ceiling(st);
        boolean falling = !Double.isNaN(st.previousWatermark) && y < st.previousWatermark;
        boolean room = falling || y <= s.targetWatermark();
        st.recovering = !Double.isNaN(ceiling) && st.rate < ceiling && binding && room;
        return st.recovering;
    }

    private static double ceiling(State st) {
        return Double.isNaN(st.lastTc) ? st.entryRate : Math.min(st.lastTc, st.entryRate);
    }

    /** One step of the climb (see {@link #climbs}); Eq. 2's period restarts so its next step sees the new rate. */
    private Action climb(LsmSnapshot ls, State st, double y, Mode before) {
        double ceiling = ceiling(st);
        double was = st.rate;
        st.rate = Math.min(ceiling, st.rate * RECOVERY_STEP);
        st.mode = Mode.FEEDBACK;
        restartPeriod(st);
        st.recovering = st.rate < ceiling;
        return emit(
                ls,
                st,
                before,
                String.format(
                        "recovering after conservative mode: watermark %.0f%% (%+.1f points), gate binding:"
                                + " x%.2f towards %.0f/s = min(T_c, rate at entry)",
                        100 * y, 100 * (y - st.previousWatermark), st.rate / was, ceiling));
    }

    /**
     * After a raise between Eq. 2's steps, its period starts again, so that its next step measures the demand at the new
     * rate. Otherwise the period's mean demand, mostly admitted at the old rate, is below the new limit, and a cut at
     * the period's end starts from that mean (the anti-windup base): in official run 7 (s 431–437) a raise from 5,686
     * to 7,840 was taken back to 6,738 six seconds later, Eq. 2's ×0.97 step applied to the period's mean demand.
     */
    private static void restartPeriod(State st) {
        st.periodOps = 0;
        st.periodNanos = 0;
    }

    /** The gate held requests back during the tick: some queued at its end, or refused during it. */
    private static boolean binding(LsmSnapshot ls) {
        return ls.admissionQueued() > 0 || ls.opsDelta().rejected() > 0;
    }

    /** The median of the latest falls per second (0 when the watermark did not fall at the last tick). */
    private static double medianFall(State st) {
        if (st.falls.isEmpty()) {
            return 0;
        }
        double[] f = st.falls.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = f.length;
        return n % 2 == 1 ? f[n / 2] : (f[n / 2 - 1] + f[n / 2]) / 2;
    }

    /**
     * The rate for a buffer that drains above the target (see the class comment): the merges take out what the buffer
     * lost per second (the median over the latest draining ticks) plus what the admitted writes put in; the rate is scaled
     * so that the buffer still falls fast enough to reach the target within {@code drain.horizon.seconds}, at most by
     * {@link #RECOVERY_STEP} a tick and up to the rate before Eq. 2's last cuts. NaN when the inflow is unknown (no
     * writes this tick, or no write-buffer budget).
     */
    private double drainRaise(LsmSnapshot ls, State st, double y, double fall) {
        double interval = ls.intervalNanos() / 1e9;
        long writes = ls.opsDelta().writes();
        if (writes <= 0 || ls.memtableBudgetBytes() <= 0) {
            return Double.NaN;
        }
        double bytesPerWrite = ls.opsDelta().bytesWritten() > 0
                ? (double) ls.opsDelta().bytesWritten() / writes
                : (double) ls.ops().bytesWritten() / Math.max(1, ls.ops().writes());
        double inflow = writes * bytesPerWrite / interval / ls.memtableBudgetBytes(); // budget fractions per second
        if (inflow <= 0) {
            return Double.NaN;
        }
        double merged = fall + inflow;
        double wanted = (y - s.targetWatermark()) / s.drainHorizonSeconds();
        double scale = (merged - wanted) / inflow;
        double admitted = inScope(ls.opsDelta()) / interval; // the rate the measured inflow came with
        return Math.min(st.cutFrom, Math.min(st.rate * RECOVERY_STEP, admitted * scale));
    }

    /** Clamps the rate to [min.rate, cap] and emits it when it moved past the threshold or the mode changed. */
    private Action emit(LsmSnapshot ls, State st, Mode before, String reason) {
        double cap = Math.min(st.debtCeiling, s.maxRateFactor() * Math.max(st.t0, st.demandEwma));
        st.rate = Math.max(s.minRate(), Math.min(st.rate, cap));
        boolean changed = Double.isInfinite(st.applied)
                || Math.abs(st.rate - st.applied) > s.changeThreshold() * st.applied
                || st.mode != before;
        if (!changed) {
            return null;
        }
        st.applied = st.rate;
        return new Action.SetAdmissionRate(ls.partition(), st.rate, reason);
    }

    /**
     * Eq. 3 from this snapshot with the configured device throughput, else the measured peak; half the current rate only
     * when neither exists (see the class comment).
     */
    private double conservative(LsmSnapshot ls, State st) {
        double deviceRead = s.deviceReadBytesPerSecond() > 0 ? s.deviceReadBytesPerSecond() : measuredBytesPerSecond;
        double deviceWrite = s.deviceWriteBytesPerSecond() > 0 ? s.deviceWriteBytesPerSecond() : measuredBytesPerSecond;
        boolean configured = s.deviceReadBytesPerSecond() > 0 && s.deviceWriteBytesPerSecond() > 0;
        OpCounters d = ls.opsDelta().total() > 0 ? ls.opsDelta() : ls.ops();
        long reads = d.reads(), writes = d.writes();
        if (s.scope() == AdmissionScope.WRITES) {
            reads = 0; // the gate counts writes only: T_c is the write capacity
        }
        long total = reads + writes;
        double tc = Double.NaN;
        if (total > 0) {
            double pr = (double) reads / total, pw = (double) writes / total;
            double bytesPerRead = ls.ops().reads() > 0
                    ? (double) ls.ops().bytesRead()
                            / Math.max(1, ls.ops().gets() + ls.ops().scannedEntries())
                    : 0;
            double bytesPerWrite = ls.ops().writes() > 0
                    ? (double) ls.ops().bytesWritten() / ls.ops().writes()
                    : 0;
            tc = ConservativeRate.requestsPerSecond(
                    pr,
                    pw,
                    readAmplification(ls),
                    Math.max(1, ls.writeAmplification()),
                    bytesPerRead,
                    bytesPerWrite,
                    deviceRead,
                    deviceWrite);
        }
        if (Double.isNaN(tc) || Double.isInfinite(tc)) {
            double base = Double.isInfinite(st.rate) ? st.t0 : st.rate;
            st.tcSource = " = half the rate (no device throughput configured or measured)";
            return base / 2;
        }
        st.tcSource = configured
                ? " (Eq. 3, configured device throughput)"
                : String.format(
                        " (Eq. 3, device throughput measured: peak %.1f MiB/s%s)",
                        measuredBytesPerSecond / (1 << 20),
                        s.deviceReadBytesPerSecond() > 0 || s.deviceWriteBytesPerSecond() > 0
                                ? ", with the configured direction"
                                : "");
        return tc;
    }

    static double readAmplification(LsmSnapshot ls) {
        double measured = ls.readAmplification();
        if (measured > 0) {
            return measured;
        }
        int runs = ls.l0Files();
        for (LevelInfo l : ls.levels()) {
            if (l.level() > 0 && l.fileCount() > 0) {
                runs++;
            }
        }
        return 1 + runs;
    }
}
