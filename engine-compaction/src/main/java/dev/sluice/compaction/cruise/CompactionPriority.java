package dev.sluice.compaction.cruise;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CruiseDB §VI-B-1: "if a single LSM-tree level is more than 5 times larger than its expected size, the compaction of
 * this level should be scheduled prior to that between the memory and L1".
 *
 * <p>Each tick, per partition: find the level L ≥ 1 (not the last) with the highest {@code bytes/target} ratio above
 * {@code ratio} (default 5). If no batch of this controller is still pending there:
 *
 * <ul>
 *   <li>when some of L's files are free (in no running compaction), pick a run of up to {@code max.files} adjacent free
 *       files (at most {@code max.bytes} in total; see below) and emit {@code compactFiles(files → L+1)};
 *   <li>when every file of L is taken by a running compaction — on the SP-LSM profile that is the memory→L1 merge (L0 →
 *       base level), which with random keys overlaps the whole base level — switch RocksDB's automatic compactions off
 *       (the <b>hold</b>), so that when the running merge ends RocksDB does not start the next memory→L1 merge ahead of
 *       L's compaction. At the first tick that finds free files the batch goes out; the tick after it, the hold ends
 *       (automatic compactions on again) — by then the batch holds L's files, so the next memory→L1 merge, which needs
 *       them, waits for it. Flushes continue during a hold, so the memory buffer (memtables + L0) fills and the admission
 *       controller sees it, as in the paper.
 * </ul>
 *
 * <p>Safety bounds of the hold: it ends after {@code hold.seconds}, as soon as L0 holds half of {@code
 * level0_slowdown_writes_trigger} files (a hold alone never slows writes), when the level is no longer over the ratio,
 * or when someone else switched automatic compactions back on. After an expired or overridden hold no new one starts for
 * another {@code hold.seconds}, so automatic compactions are never off for more than half of the time and the
 * controller does not fight another one over the switch. It only ever re-enables what it disabled: when automatic
 * compactions were already off, it does not hold. {@code hold.seconds = 0} never holds.
 *
 * <p><b>How this approximates the paper.</b> RocksDB's picker cannot be reordered from outside: it ranks L0 by file count
 * and, with {@code level_compaction_dynamic_level_bytes}, scales L0's score ×10 once L0 outgrows the base level — the
 * opposite of CruiseDB's rule — and a running memory→L1 merge cannot be preempted. Sluice gets the priority by starting
 * the oversized level's compaction on its own manual-compaction thread, and by pausing automatic compactions between
 * the end of the running merge and the start of that compaction. While paused, no other automatic compaction starts
 * either (RocksDB has no per-level switch). Targets come from the snapshot (RocksDB's static targets, or an estimate of
 * its dynamic ones).
 *
 * <p>A batch is a run of adjacent files in key order (largest run first, within {@code max.files} and {@code
 * max.bytes}): RocksDB's {@code compactFiles} compacts every file between the smallest and the largest key it is
 * given, and refuses the whole batch when one of those, or one of the next level's files over that span, is in
 * another compaction (RocksDB's {@code CompactionPicker::SanitizeCompactionInputFilesForAllLevels}). Files picked
 * apart (as this controller did until 2026-11-26: the largest files first) made it compact far more of the level than
 * {@code max.files} said, or fail. Files without key bounds
 * (a Cassandra table's sstables) are still picked largest first.
 *
 * <p><b>Budget by the buffer's headroom</b> ({@code budget.watermark > 0}; a Sluice addition, not in the paper). While
 * a prioritized batch of the base level runs, no memory→L1 merge can (with random keys it needs every file of the base
 * level), so the memory buffer only fills. Measured on the emulated disk (docs/benchmarks.md, experiment 6, ratio 1.5,
 * s 330–378): a batch of the base level ran for ~40 s, the buffer (memtables + unmerged L0) went from 91 % to 99 %, and
 * admission cut the rate to 268 ops/s. With the budget, a batch of the base level is a run whose estimated I/O, 2 × (its
 * files + the next level's files over its key span), at the compaction I/O rate, ends before the buffer ({@link
 * LsmSnapshot#unmergedWatermark}) reaches {@code budget.watermark} at the user write rate. When not even one file fits,
 * no batch starts, a hold ends (or does not start): the next memory→L1 merge drains the buffer first. The compaction
 * I/O rate is an exponentially smoothed mean (weight 0.3) over the ticks that had COMPACTION_* I/O; the write rate is
 * the larger of the tick's and its smoothed mean. Until a compaction has been measured the budget bounds nothing.
 * Batches of deeper levels are not budgeted: they do not block the memory path. With the priority Env the rate counts
 * device I/O; without it, RocksDB's compaction byte counters, which include reads served by the page cache, so the
 * rate (and the batch) may come out larger than the device allows. The buffer counts memtable bytes (with RocksDB's
 * per-entry overhead) and L0 file bytes, the write rate user key + value bytes: the budget is an estimate, not a bound.
 *
 * <p><b>Drain through RocksDB's own picker</b> ({@code drain.l0.trigger > 0}; a Sluice addition, 2026-11-27). On the
 * SP-LSM profile L0's compaction trigger is 1, and RocksDB 9.10 scores L0 by its file count over that trigger, scaled
 * ×10 above 1 ({@code VersionStorageInfo::ComputeCompactionScore}), while the base level scores its bytes over (target +
 * L0's bytes), also ×10. With 5–14 files waiting in L0 behind a long merge, L0 scored 50–140 against the base level's
 * 20–50, so every time a memory→L1 merge ended the next one started before the base level's own compaction: on the
 * 1,800-s run of 2026-11-27 (docs/benchmarks.md) the base level grew to 15× its target (3.8 GiB), each merge rewrote all
 * of it, and prioritized batches (≤ {@code max.files}) moved too little to matter. With this option, while the base
 * level is over {@code ratio} × its target, the controller raises {@code level0_file_num_compaction_trigger} to {@code
 * drain.l0.trigger} (at most the slowdown trigger). L0's score then falls below 1 until L0 holds that many files or
 * {@code max_bytes_for_level_base} bytes (RocksDB then gives it 10.1, or its bytes over the base level's), so RocksDB
 * itself picks the base level's compactions into the next level first, on all its compaction threads and with its own
 * file choice. The trigger goes back to its value from before when the base level is at its target again, when the
 * buffer reaches {@code budget.watermark} (if set), or never, if someone else changed the trigger meanwhile (then the
 * controller leaves the trigger alone for good). While it drains this way, the controller issues no batches and no
 * holds for the base level (a hold in force ends); deeper levels keep them. An approximation: RocksDB runs the memory→L1
 * merge only when no base-level file is in a compaction, so after the trigger is restored the merge still waits for the
 * base level's running compactions, and RocksDB keeps picking the base level while that merge is blocked and the base
 * level is over its target. Engines without the trigger (a Cassandra table: {@code l0CompactionTrigger < 0}) are left to
 * the batches.
 *
 * <p>A batch counts as pending until none of its files is in the level any more, or {@code timeout.seconds} passed.
 * Pure: time arrives as {@code nowNanos}; not thread-safe (the control plane calls it from one thread).
 */
public final class CompactionPriority implements ControlLoop {
    private final double ratio;
    private final int maxFiles;
    private final long maxBytes;
    private final long timeoutNanos;
    private final long holdNanos;
    private final double budgetWatermark;
    private final int drainTrigger;
    /** Weight of a tick in the smoothed rates of the budget. */
    private static final double SMOOTHING = 0.3;
    /** Per partition: the smoothed compaction I/O rate (bytes/s) over the ticks that had compaction I/O. */
    private final Map<String, double[]> compactionRate = new HashMap<>();
    /** Per partition: the smoothed user write rate (bytes/s), every tick. */
    private final Map<String, double[]> writeRate = new HashMap<>();

    private final Map<String, Pending> pending = new HashMap<>();
    private final Map<String, Hold> holds = new HashMap<>();
    /** No new hold before this time: after a hold expired, or after someone else switched compactions back on. */
    private final Map<String, Long> noHoldUntil = new HashMap<>();

    private record Pending(int level, Set<String> files, long sinceNanos) {}

    /** The L0 compaction trigger this controller raised to {@code raisedTo}, and the one to put back. */
    private record Drain(int restoreTo, int raisedTo) {}

    private final Map<String, Drain> drains = new HashMap<>();
    /** Partitions whose L0 trigger someone else changed while it was raised: left alone from then on. */
    private final Set<String> drainLeft = new HashSet<>();

    /** Automatic compactions switched off by this controller since {@code sinceNanos}; {@code batchIssued} once the
     * prioritized batch went out during the hold. */
    private record Hold(long sinceNanos, boolean batchIssued) {}

    public CompactionPriority(double ratio, int maxFiles, long maxBytes, long timeoutNanos, long holdNanos) {
        this(ratio, maxFiles, maxBytes, timeoutNanos, holdNanos, 0);
    }

    /** @param budgetWatermark {@code budget.watermark}: 0 = no budget, else in (0, 1] (see the class doc) */
    public CompactionPriority(
            double ratio, int maxFiles, long maxBytes, long timeoutNanos, long holdNanos, double budgetWatermark) {
        this(ratio, maxFiles, maxBytes, timeoutNanos, holdNanos, budgetWatermark, 0);
    }

    /**
     * @param budgetWatermark {@code budget.watermark}: 0 = no budget, else in (0, 1] (see the class doc)
     * @param drainTrigger {@code drain.l0.trigger}: 0 = off, else the L0 compaction trigger to set while the base level
     *     is over {@code ratio} × its target (see the class doc)
     */
    public CompactionPriority(
            double ratio,
            int maxFiles,
            long maxBytes,
            long timeoutNanos,
            long holdNanos,
            double budgetWatermark,
            int drainTrigger) {
        if (!(budgetWatermark >= 0 && budgetWatermark <= 1)) {
            throw new IllegalArgumentException("budget.watermark must be 0 (off) or in (0, 1]: " + budgetWatermark);
        }
        if (drainTrigger < 0) {
            throw new IllegalArgumentException(
                    "drain.l0.trigger must be 0 (off) or a file count >= 1: " + drainTrigger);
        }
        this.drainTrigger = drainTrigger;
        this.budgetWatermark = budgetWatermark;
        this.ratio = ratio;
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
        this.timeoutNanos = timeoutNanos;
        this.holdNanos = holdNanos;
    }

    @Override
    public String name() {
        return "cruise-compaction-priority";
    }

    /** Whether this controller has automatic compactions of {@code partition} switched off now. */
    public boolean holding(String partition) {
        return holds.containsKey(partition);
    }

    /** {@inheritDoc} */
    @Override
    public void forget(String partition) {
        compactionRate.remove(partition);
        writeRate.remove(partition);
        pending.remove(partition);
        holds.remove(partition);
        noHoldUntil.remove(partition);
        drains.remove(partition);
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot s : snapshot.partitions().values()) {
            decide(s, nowNanos, out);
        }
        return out;
    }

    private void decide(LsmSnapshot s, long nowNanos, List<Action> out) {
        String p = s.partition();
        observe(s);
        LevelInfo worst = worstLevel(s);
        Hold hold = holds.get(p);
        if (drain(s, out)) {
            if (hold != null) {
                holds.remove(p);
                out.add(new Action.SetAutoCompactions(
                        p,
                        true,
                        "the base level drains through RocksDB's own picker (L0 compaction trigger raised):"
                                + " automatic compactions resume"));
                return;
            }
            if (worst != null && worst.level() == baseLevel(s)) {
                return; // RocksDB compacts it on its own threads; deeper levels still get batches
            }
        }
        if (hold != null) {
            String release = null;
            if (!s.autoCompactionsDisabled()) {
                // switched back on by someone else: nothing left to undo, and no fight over the knob for a while
                holds.remove(p);
                noHoldUntil.put(p, nowNanos + holdNanos);
                hold = null;
            } else if (hold.batchIssued()) {
                release = "the prioritized compaction started: automatic compactions resume";
            } else if (worst == null) {
                release = "no level is over " + ratio + "x its target any more: automatic compactions resume";
            } else if (nowNanos - hold.sinceNanos() >= holdNanos) {
                noHoldUntil.put(p, nowNanos + holdNanos);
                release = String.format(
                        "hold of %.0f s expired without free files in L%d: automatic compactions resume",
                        holdNanos / 1e9, worst.level());
            } else if (s.l0Files() >= l0Bound(s)) {
                release = String.format(
                        "L0 has %d files (half the slowdown trigger %d): automatic compactions resume",
                        s.l0Files(), s.l0SlowdownTrigger());
            } else if (!anyFileFits(s, worst, allowedIoBytes(s, worst))) {
                release = noRoom(s, worst);
            }
            if (release != null) {
                holds.remove(p);
                out.add(new Action.SetAutoCompactions(p, true, release));
                return;
            }
        }
        Pending batch = pending.get(p);
        if (batch != null) {
            if (stillThere(s, batch) && nowNanos - batch.sinceNanos() < timeoutNanos) {
                return;
            }
            pending.remove(p);
        }
        if (worst == null) {
            return;
        }
        double allowed = allowedIoBytes(s, worst);
        if (worst.files().stream().allMatch(SstFile::beingCompacted)) {
            if (hold == null
                    && holdNanos > 0
                    && !s.autoCompactionsDisabled()
                    && s.l0Files() < l0Bound(s)
                    && nowNanos >= noHoldUntil.getOrDefault(p, Long.MIN_VALUE)
                    && anyFileFits(s, worst, allowed)) {
                holds.put(p, new Hold(nowNanos, false));
                out.add(new Action.SetAutoCompactions(
                        p,
                        false,
                        String.format(
                                "L%d is %.1fx its target but every file of it is in a running compaction: pause"
                                        + " automatic compactions so that L%d goes before the next memory->L1 merge"
                                        + " (CruiseDB §VI-B)",
                                worst.level(), worst.score(), worst.level())));
            }
            return;
        }
        List<SstFile> run = chooseRun(s, worst, allowed);
        if (run.isEmpty()) {
            // not even one file's compaction ends before the buffer reaches budget.watermark: let the next
            // memory->L1 merge drain it first
            if (hold != null) {
                holds.remove(p);
                out.add(new Action.SetAutoCompactions(p, true, noRoom(s, worst)));
            }
            return;
        }
        List<String> chosen = run.stream().map(SstFile::name).toList();
        pending.put(p, new Pending(worst.level(), new HashSet<>(chosen), nowNanos));
        if (hold != null) {
            holds.put(p, new Hold(hold.sinceNanos(), true));
        }
        out.add(new Action.CompactFiles(
                p,
                chosen,
                worst.level() + 1,
                String.format(
                        "L%d is %.1fx its target (%d > %d bytes): compact %d of its files before memory->L1 work"
                                + " (CruiseDB §VI-B)%s",
                        worst.level(),
                        worst.score(),
                        worst.bytes(),
                        worst.targetBytes(),
                        chosen.size(),
                        Double.isInfinite(allowed)
                                ? ""
                                : String.format(
                                        "; about %.0f MiB of I/O, budget %.0f MiB before the buffer reaches %.0f %%",
                                        batchIoBytes(s, worst.level(), run) / (double) (1 << 20),
                                        allowed / (1 << 20),
                                        budgetWatermark * 100))));
    }

    /**
     * Raises or restores L0's compaction trigger ({@code drain.l0.trigger}, see the class doc); whether the trigger is
     * raised after this tick.
     */
    private boolean drain(LsmSnapshot s, List<Action> out) {
        String p = s.partition();
        int trigger = s.l0CompactionTrigger();
        if (drainTrigger <= 0 || trigger <= 0 || drainLeft.contains(p)) {
            return false;
        }
        int base = baseLevel(s);
        LevelInfo level = base >= 1 && base < s.levels().size() - 1 ? s.levels().get(base) : null;
        boolean bufferFull =
                budgetWatermark > 0 && s.memtableBudgetBytes() > 0 && s.unmergedWatermark() >= budgetWatermark;
        Drain d = drains.get(p);
        if (d != null) {
            if (trigger != d.raisedTo()) {
                drains.remove(p); // someone else set it since: theirs now
                drainLeft.add(p);
                return false;
            }
            String why = null;
            if (level == null || level.score() <= 1) {
                why = level == null
                        ? "the tree has no base level above the last"
                        : String.format("L%d is at its target again (%.1fx)", level.level(), level.score());
            } else if (bufferFull) {
                why = String.format(
                        "the buffer is %.0f %% full (budget.watermark %.0f %%): the memory->L1 merge goes first",
                        s.unmergedWatermark() * 100, budgetWatermark * 100);
            }
            if (why == null) {
                return true;
            }
            drains.remove(p);
            out.add(new Action.SetL0Triggers(
                    p,
                    Math.min(d.restoreTo(), s.l0SlowdownTrigger()),
                    s.l0SlowdownTrigger(),
                    s.l0StopTrigger(),
                    why + ": L0 compaction trigger back to " + d.restoreTo()));
            return false;
        }
        if (level == null || level.score() <= ratio || bufferFull) {
            return false;
        }
        int raised = Math.min(drainTrigger, s.l0SlowdownTrigger());
        if (raised <= trigger) {
            return false;
        }
        drains.put(p, new Drain(trigger, raised));
        out.add(new Action.SetL0Triggers(
                p,
                raised,
                s.l0SlowdownTrigger(),
                s.l0StopTrigger(),
                String.format(
                        "L%d is %.1fx its target (%d > %d bytes): L0 compaction trigger %d -> %d, so that RocksDB"
                                + " compacts L%d into L%d before the next memory->L1 merge (CruiseDB §VI-B)",
                        level.level(),
                        level.score(),
                        level.bytes(),
                        level.targetBytes(),
                        trigger,
                        raised,
                        level.level(),
                        level.level() + 1)));
        return true;
    }

    /** Whether this controller has raised {@code partition}'s L0 compaction trigger now. */
    public boolean draining(String partition) {
        return drains.containsKey(partition);
    }

    private String noRoom(LsmSnapshot s, LevelInfo level) {
        return String.format(
                "the buffer (%.0f %% full) has no room for a prioritized compaction of even one file of L%d before it"
                        + " reaches %.0f %%: automatic compactions resume",
                s.unmergedWatermark() * 100, level.level(), budgetWatermark * 100);
    }

    /**
     * The run of adjacent files (in key order) to compact: all free, at most {@code max.files}, at most {@code
     * max.bytes} (a single file may exceed it), its I/O within {@code allowed}; of these the run with the most bytes, the
     * cheaper one on a tie. Adjacent because RocksDB's {@code compactFiles} compacts every file between the first and the
     * last key it is given (and fails when one of them is in another compaction): files picked apart would make it
     * compact far more than {@code max.files}. Empty when no file fits.
     */
    List<SstFile> chooseRun(LsmSnapshot s, LevelInfo level, double allowed) {
        if (!level.files().stream().allMatch(CompactionPriority::bounded)) {
            return chooseLargest(s, level, allowed);
        }
        List<SstFile> ordered = new ArrayList<>(level.files());
        ordered.sort(KEY_ORDER);
        List<SstFile> best = List.of();
        long bestBytes = -1;
        long bestCost = Long.MAX_VALUE;
        for (int i = 0; i < ordered.size(); i++) {
            List<SstFile> run = new ArrayList<>();
            long bytes = 0;
            for (int j = i; j < ordered.size(); j++) {
                SstFile f = ordered.get(j);
                if (f.beingCompacted()
                        || run.size() >= maxFiles
                        || (!run.isEmpty() && bytes + f.sizeBytes() > maxBytes)) {
                    break;
                }
                run.add(f);
                long cost = batchIoBytes(s, level.level(), run);
                if (cost > allowed || nextLevelBusy(s, level.level(), run)) {
                    break; // a longer run only costs more, and spans the busy file too
                }
                bytes += f.sizeBytes();
                if (bytes > bestBytes || (bytes == bestBytes && cost < bestCost)) {
                    best = List.copyOf(run);
                    bestBytes = bytes;
                    bestCost = cost;
                }
            }
        }
        return best;
    }

    /**
     * Without key bounds (a Cassandra table's sstables carry none) there is no key order and no span: the largest free
     * files first, skipping one whose I/O would exceed {@code allowed}.
     */
    private List<SstFile> chooseLargest(LsmSnapshot s, LevelInfo level, double allowed) {
        List<SstFile> free = new ArrayList<>(
                level.files().stream().filter(f -> !f.beingCompacted()).toList());
        free.sort(Comparator.comparingLong(SstFile::sizeBytes).reversed());
        List<SstFile> chosen = new ArrayList<>();
        long bytes = 0;
        for (SstFile f : free) {
            if (chosen.size() >= maxFiles || (!chosen.isEmpty() && bytes + f.sizeBytes() > maxBytes)) {
                break;
            }
            chosen.add(f);
            if (batchIoBytes(s, level.level(), chosen) > allowed) {
                chosen.remove(chosen.size() - 1);
                continue;
            }
            bytes += f.sizeBytes();
        }
        return chosen;
    }

    /** Whether the file carries its key bounds (a largest key, which only a file holding just the empty key lacks). */
    private static boolean bounded(SstFile f) {
        return f.smallestKey() != null && f.largestKey() != null && f.largestKey().length > 0;
    }

    private static boolean anyFileFits(LsmSnapshot s, LevelInfo level, double allowed) {
        if (Double.isInfinite(allowed)) {
            return true;
        }
        for (SstFile f : level.files()) {
            if (batchIoBytes(s, level.level(), List.of(f)) <= allowed) {
                return true;
            }
        }
        return false;
    }

    private void observe(LsmSnapshot s) {
        if (budgetWatermark <= 0 || s.intervalNanos() <= 0) {
            return;
        }
        double inflow = Math.max(0, s.opsDelta().bytesWritten()) / s.intervalSeconds();
        double[] in = writeRate.computeIfAbsent(s.partition(), k -> new double[] {inflow});
        in[0] = (1 - SMOOTHING) * in[0] + SMOOTHING * inflow;
        long moved = s.ioDelta().bytes(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP);
        if (moved > 0) {
            double rate = moved / s.intervalSeconds();
            double[] r = compactionRate.computeIfAbsent(s.partition(), k -> new double[] {rate});
            r[0] = (1 - SMOOTHING) * r[0] + SMOOTHING * rate;
        }
    }

    /**
     * I/O bytes a prioritized batch of {@code level} may cost: the smoothed compaction I/O rate × the seconds until the
     * buffer reaches {@code budget.watermark} at the user write rate (the larger of the tick's and the smoothed one, so
     * that a quiet tick does not widen the budget). 0 when the buffer is already at or above it; infinite when the
     * budget is off, the level is not the base level (only a batch of the base level blocks the memory→L1 merge), or
     * the rates are not known yet.
     */
    double allowedIoBytes(LsmSnapshot s, LevelInfo level) {
        if (budgetWatermark <= 0 || s.memtableBudgetBytes() <= 0 || level.level() != baseLevel(s)) {
            return Double.POSITIVE_INFINITY;
        }
        double headroom = (budgetWatermark - s.unmergedWatermark()) * s.memtableBudgetBytes();
        if (headroom <= 0) {
            return 0;
        }
        double[] r = compactionRate.get(s.partition());
        double[] in = writeRate.get(s.partition());
        double tick = s.intervalNanos() <= 0 ? 0 : Math.max(0, s.opsDelta().bytesWritten()) / s.intervalSeconds();
        double inflow = Math.max(tick, in == null ? 0 : in[0]);
        if (r == null || inflow <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        return r[0] * headroom / inflow;
    }

    /** The level L0 merges into: the first level ≥ 1 with a target (levels above a dynamic base level have none). */
    private static int baseLevel(LsmSnapshot s) {
        for (LevelInfo l : s.levels()) {
            if (l.level() >= 1 && l.targetBytes() > 0) {
                return l.level();
            }
        }
        return -1;
    }

    /**
     * The I/O of compacting {@code files} of {@code level} into the next level: 2 × (the files + every file of the next
     * level that overlaps their key span), each byte read once and written once. RocksDB's {@code compactFiles} takes
     * the next level's files over the whole span from the smallest to the largest key.
     */
    static long batchIoBytes(LsmSnapshot s, int level, List<SstFile> files) {
        long in = 0;
        byte[] lo = null;
        byte[] hi = null;
        boolean unknown = false;
        for (SstFile f : files) {
            in += f.sizeBytes();
            if (!bounded(f)) {
                unknown = true;
            } else {
                lo = lo == null || Arrays.compareUnsigned(f.smallestKey(), lo) < 0 ? f.smallestKey() : lo;
                hi = hi == null || Arrays.compareUnsigned(f.largestKey(), hi) > 0 ? f.largestKey() : hi;
            }
        }
        long overlap = 0;
        if (level + 1 < s.levels().size()) {
            for (SstFile n : s.levels().get(level + 1).files()) {
                if (unknown || lo == null || overlaps(lo, hi, n)) {
                    overlap += n.sizeBytes();
                }
            }
        }
        return 2 * (in + overlap);
    }

    /** Whether a file of the next level over the run's key span is in another compaction (RocksDB would refuse it). */
    private static boolean nextLevelBusy(LsmSnapshot s, int level, List<SstFile> run) {
        if (level + 1 >= s.levels().size()) {
            return false;
        }
        byte[] lo = run.get(0).smallestKey();
        byte[] hi = run.get(run.size() - 1).largestKey();
        for (SstFile n : s.levels().get(level + 1).files()) {
            if (n.beingCompacted() && overlaps(lo, hi, n)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code f}'s key range meets [lo, hi] (bytewise, unsigned); a file without bounds always does. */
    static boolean overlaps(byte[] lo, byte[] hi, SstFile f) {
        if (!bounded(f)) {
            return true;
        }
        return Arrays.compareUnsigned(hi, f.smallestKey()) >= 0 && Arrays.compareUnsigned(f.largestKey(), lo) >= 0;
    }

    /** Key order of a level's files: smallest key (unsigned; absent first), then file number. */
    private static final Comparator<SstFile> KEY_ORDER = Comparator.comparing(
                    (SstFile f) -> f.smallestKey() == null ? new byte[0] : f.smallestKey(), Arrays::compareUnsigned)
            .thenComparingLong(SstFile::fileNumber);

    /** The level L ≥ 1, not the last, with the highest score above the ratio; null if none. */
    private LevelInfo worstLevel(LsmSnapshot s) {
        LevelInfo worst = null;
        for (LevelInfo l : s.levels()) {
            if (l.level() >= 1
                    && l.level() < s.levels().size() - 1
                    && l.targetBytes() > 0
                    && l.score() > ratio
                    && (worst == null || l.score() > worst.score())) {
                worst = l;
            }
        }
        return worst;
    }

    /** L0 file count at which a hold ends: half the slowdown trigger (at least 1). */
    private static int l0Bound(LsmSnapshot s) {
        return Math.max(1, s.l0SlowdownTrigger() / 2);
    }

    private static boolean stillThere(LsmSnapshot s, Pending p) {
        if (p.level() >= s.levels().size()) {
            return false;
        }
        for (SstFile f : s.levels().get(p.level()).files()) {
            if (p.files().contains(f.name())) {
                return true;
            }
        }
        return false;
    }
}
