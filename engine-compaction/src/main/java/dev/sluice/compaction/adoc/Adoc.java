package dev.sluice.compaction.adoc;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.Bytes;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * ADOC, Automatic Data Overflow Control (Yu et al., FAST'23, §4–§5): every tuning window T_w it looks for the three
 * data overflows ({@link Overflow}) in each partition and tunes that partition's number of background threads
 * ({@code max_background_jobs}) and batch size ({@code write_buffer_size}) by AIMD. One independent loop per partition
 * (each partition is its own RocksDB instance).
 *
 * <p>Per window, the overflows seen in any tick of the window are collected; at the window's end the first of them in
 * the order L0O, RDO, MMO is handled (ADOC §5); the others are named in the reason but not acted on. With {@code cur}
 * the partition's current values read from the snapshot (not this loop's memory, so a change another controller made,
 * or a superseded action, is taken as it is), {@code init} the values of the partition's first snapshot, and the
 * maxima from the options:
 *
 * <pre>
 *   L0O   threads = min(max, cur + step)          batch unchanged
 *   RDO   threads = min(max, cur + step)          batch = max(init, cur / 2)
 *   MMO   threads = max(init, cur / 2)            batch = min(maxBatch, cur + batchStep)
 *   none  (for quiet.windows windows in a row)    threads = max(init, cur / 2), batch = max(init, cur / 2)
 * </pre>
 *
 * A knob is never raised above its maximum nor lowered below its initial value; a value already past a bound (set by
 * someone else) is left alone. An action is emitted only when a knob changes, so a steady tree produces no events.
 * Flush threads follow by themselves: with {@code max_background_flushes = max_background_compactions = -1} (stock),
 * RocksDB allows {@code max(1, max_background_jobs / 4)} flushes and the rest compactions ({@code
 * DBImpl::GetBGJobLimits}), which is ADOC's "a quarter of the total number". See {@code ADOC.md} beside this class for
 * the formulas, a worked example and how this differs from the authors' code.
 *
 * <p>Pure: no engine, no clock (time arrives as {@code nowNanos}), no thread; called from the control plane's tick
 * thread only, so it is not thread-safe.
 */
public final class Adoc implements ControlLoop {
    /** Tuning parameters; see {@link AdocProvider#optionSet()} for their meaning and defaults. */
    public record Settings(
            long windowNanos,
            int maxBackgroundJobs,
            long maxWriteBufferBytes,
            int threadStep,
            long batchStepBytes,
            double earlyWarning,
            double mmoActiveFraction,
            int quietWindows,
            int maxSubcompactions) {
        public Settings {
            if (windowNanos <= 0) {
                throw new IllegalArgumentException("window must be positive, was " + windowNanos + " ns");
            }
            if (maxBackgroundJobs < 1 || maxWriteBufferBytes < 1 || threadStep < 1 || batchStepBytes < 1) {
                throw new IllegalArgumentException("maxima and steps must be positive: " + maxBackgroundJobs + ", "
                        + maxWriteBufferBytes + ", " + threadStep + ", " + batchStepBytes);
            }
            if (!(earlyWarning > 0 && earlyWarning <= 1) || !(mmoActiveFraction > 0 && mmoActiveFraction <= 1)) {
                throw new IllegalArgumentException("fractions must be in (0, 1]: early warning " + earlyWarning
                        + ", MMO active fraction " + mmoActiveFraction);
            }
            if (quietWindows < 1) {
                throw new IllegalArgumentException("quiet windows must be at least 1, was " + quietWindows);
            }
            if (maxSubcompactions < 1) {
                throw new IllegalArgumentException("max subcompactions must be at least 1, was " + maxSubcompactions);
            }
        }

        /**
         * The paper's values: T_w = 1 s, +2 threads, +64 MiB, thresholds as RocksDB's; maximum batch 512 MiB (§6.1);
         * the thread count does not reach into the L0→L1 job (max subcompactions 1).
         */
        public static Settings paper(int maxBackgroundJobs) {
            return new Settings(1_000_000_000L, maxBackgroundJobs, 512L << 20, 2, 64L << 20, 1.0, 0.9, 1, 1);
        }

        /** The same with the L0→L1 job's threads following the compaction threads, up to {@code maxSubcompactions}. */
        public Settings withMaxSubcompactions(int max) {
            return new Settings(
                    windowNanos,
                    maxBackgroundJobs,
                    maxWriteBufferBytes,
                    threadStep,
                    batchStepBytes,
                    earlyWarning,
                    mmoActiveFraction,
                    quietWindows,
                    max);
        }
    }

    private final Settings cfg;
    private final Map<String, PartitionState> states = new HashMap<>();

    /** One partition's window and its initial knob values. */
    private static final class PartitionState {
        final int initialJobs;
        final long initialBatch;
        /** The partition's first max_subcompactions; -1 when its engine has no such knob. */
        final int initialSubcompactions;

        long windowStart;
        final EnumSet<Overflow> seen = EnumSet.noneOf(Overflow.class);
        /** Peaks seen in the window and the thresholds they were compared with, for the reason. */
        int peakL0;

        int l0Threshold;
        long peakPending;
        long pendingThreshold;
        /** How the first MMO of the window showed, for the reason. */
        String mmoEvidence = "";
        /** Windows in a row without overflow. */
        int quiet;

        PartitionState(LsmSnapshot s, long now) {
            initialJobs = s.maxBackgroundJobs();
            initialBatch = s.writeBufferSize();
            initialSubcompactions = s.maxSubcompactions();
            windowStart = now;
        }

        void reset(long now) {
            windowStart = now;
            seen.clear();
            peakL0 = 0;
            peakPending = 0;
            mmoEvidence = "";
        }
    }

    public Adoc(Settings settings) {
        this.cfg = settings;
    }

    @Override
    public String name() {
        return "adoc";
    }

    /** {@inheritDoc} */
    @Override
    public void forget(String partition) {
        states.remove(partition);
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot s : snapshot.partitions().values()) {
            decide(s, nowNanos, out);
        }
        return out;
    }

    private void decide(LsmSnapshot s, long now, List<Action> out) {
        PartitionState st = states.computeIfAbsent(s.partition(), k -> new PartitionState(s, now));
        observe(st, s);
        if (now - st.windowStart < cfg.windowNanos()) {
            return;
        }
        tune(st, s, out);
        st.reset(now);
    }

    private void observe(PartitionState st, LsmSnapshot s) {
        Set<Overflow> now = Overflow.detect(s, cfg.earlyWarning(), cfg.mmoActiveFraction());
        st.seen.addAll(now);
        if (now.contains(Overflow.L0O) && s.l0Files() >= st.peakL0) {
            st.peakL0 = s.l0Files();
            st.l0Threshold = Overflow.l0Threshold(s, cfg.earlyWarning());
        }
        if (now.contains(Overflow.RDO) && s.pendingCompactionBytes() >= st.peakPending) {
            st.peakPending = s.pendingCompactionBytes();
            st.pendingThreshold = Overflow.pendingThreshold(s, cfg.earlyWarning());
        }
        if (now.contains(Overflow.MMO) && st.mmoEvidence.isEmpty()) {
            st.mmoEvidence = Overflow.activeFullBehindImmutable(s, cfg.mmoActiveFraction())
                    ? String.format(
                            "active memtable %s of %s (>= %.0f %%) while %d immutable memtable(s) wait for flush",
                            Bytes.human(s.activeMemtableBytes()),
                            Bytes.human(s.writeBufferSize()),
                            cfg.mmoActiveFraction() * 100,
                            s.immutableMemtables())
                    : String.format(
                            "%d immutable memtables wait for flush (max_write_buffer_number %d)",
                            s.immutableMemtables(), s.maxWriteBufferNumber());
        }
    }

    private void tune(PartitionState st, LsmSnapshot s, List<Action> out) {
        int jobs = s.maxBackgroundJobs();
        long batch = s.writeBufferSize();
        int jobsMax = Math.max(cfg.maxBackgroundJobs(), st.initialJobs);
        long batchMax = Math.max(cfg.maxWriteBufferBytes(), st.initialBatch);
        Overflow handled = st.seen.isEmpty() ? null : st.seen.iterator().next();
        int newJobs = jobs;
        long newBatch = batch;
        String why;
        if (handled == null) {
            st.quiet++;
            if (st.quiet < cfg.quietWindows()) {
                return;
            }
            newJobs = jobs > st.initialJobs ? Math.max(st.initialJobs, jobs / 2) : jobs;
            newBatch = batch > st.initialBatch ? Math.max(st.initialBatch, batch / 2) : batch;
            why = "no overflow for " + st.quiet + " window(s): give back (multiplicative decrease)";
        } else {
            st.quiet = 0;
            switch (handled) {
                case L0O -> {
                    newJobs = jobs < jobsMax ? Math.min(jobsMax, jobs + cfg.threadStep()) : jobs;
                    why = String.format(
                            "L0O: %d L0 files >= %d: more threads for L0->L1 compaction, batch unchanged",
                            st.peakL0, st.l0Threshold);
                }
                case RDO -> {
                    newJobs = jobs < jobsMax ? Math.min(jobsMax, jobs + cfg.threadStep()) : jobs;
                    newBatch = batch > st.initialBatch ? Math.max(st.initialBatch, batch / 2) : batch;
                    why = String.format(
                            "RDO: pending compaction bytes %s >= %s: more threads and a smaller batch for"
                                    + " deep compactions",
                            Bytes.human(st.peakPending), Bytes.human(st.pendingThreshold));
                }
                case MMO -> {
                    newJobs = jobs > st.initialJobs ? Math.max(st.initialJobs, jobs / 2) : jobs;
                    newBatch = batch < batchMax ? Math.min(batchMax, batch + cfg.batchStepBytes()) : batch;
                    why = "MMO: " + st.mmoEvidence + ": fewer threads (more bandwidth per flush) and a larger batch";
                }
                default -> throw new AssertionError(handled);
            }
            if (st.seen.size() > 1) {
                StringJoiner others = new StringJoiner(", ", " (also ", " this window; L0O, RDO, MMO order)");
                st.seen.stream().skip(1).forEach(o -> others.add(o.name()));
                why += others;
            }
        }
        String p = s.partition();
        if (newJobs != jobs) {
            out.add(new Action.SetMaxBackgroundJobs(
                    p,
                    newJobs,
                    String.format(
                            "%s; max_background_jobs %d -> %d (flushes max(1, jobs/4) = %d) (ADOC §5)",
                            why, jobs, newJobs, Math.max(1, newJobs / 4))));
        }
        subcompactions(st, s, newJobs, why, out);
        if (newBatch != batch) {
            out.add(new Action.SetWriteBufferSize(
                    p,
                    newBatch,
                    String.format(
                            "%s; write_buffer_size %s -> %s (ADOC §5)",
                            why, Bytes.human(batch), Bytes.human(newBatch))));
        }
    }

    /**
     * The L0→L1 job's threads follow the compaction threads: {@code max_subcompactions = compaction slots of jobs =
     * jobs − max(1, jobs / 4)}, between the partition's initial value and {@code max(maxSubcompactions, initial)}.
     * RocksDB cuts only an L0→base compaction into subcompactions (leveled style), so this is exactly the job L0O
     * waits for; without it a larger {@code max_background_jobs} cannot speed that one job (ADOC §3.2: "L0-L1
     * compaction ... cannot be parallelized with other L0-L1 compaction jobs"). Off when maxSubcompactions is 1 or the
     * engine has no such knob.
     */
    private void subcompactions(PartitionState st, LsmSnapshot s, int jobs, String why, List<Action> out) {
        int current = s.maxSubcompactions();
        if (cfg.maxSubcompactions() <= 1 || st.initialSubcompactions < 1 || current < 1) {
            return;
        }
        int slots = Math.max(1, jobs - Math.max(1, jobs / 4));
        int want = Math.max(
                st.initialSubcompactions, Math.min(Math.max(cfg.maxSubcompactions(), st.initialSubcompactions), slots));
        if (want != current) {
            out.add(new Action.SetMaxSubcompactions(
                    s.partition(),
                    want,
                    String.format(
                            "%s; max_subcompactions %d -> %d (threads of the one L0->L1 job follow the %d compaction"
                                    + " slots of %d jobs, at most %d)",
                            why,
                            current,
                            want,
                            slots,
                            jobs,
                            Math.max(cfg.maxSubcompactions(), st.initialSubcompactions))));
        }
    }
}
