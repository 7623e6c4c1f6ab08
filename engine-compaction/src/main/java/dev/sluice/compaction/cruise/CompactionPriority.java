package dev.sluice.compaction.cruise;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.util.ArrayList;
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
 *   <li>when some of L's files are free (in no running compaction), pick up to {@code max.files} of them (largest first,
 *       at most {@code max.bytes} in total) and emit {@code compactFiles(files → L+1)};
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
 * <p>A batch counts as pending until none of its files is in the level any more, or {@code timeout.seconds} passed.
 * Pure: time arrives as {@code nowNanos}; not thread-safe (the control plane calls it from one thread).
 */
public final class CompactionPriority implements ControlLoop {
    private final double ratio;
    private final int maxFiles;
    private final long maxBytes;
    private final long timeoutNanos;
    private final long holdNanos;
    private final Map<String, Pending> pending = new HashMap<>();
    private final Map<String, Hold> holds = new HashMap<>();
    /** No new hold before this time: after a hold expired, or after someone else switched compactions back on. */
    private final Map<String, Long> noHoldUntil = new HashMap<>();

    private record Pending(int level, Set<String> files, long sinceNanos) {}

    /** Automatic compactions switched off by this controller since {@code sinceNanos}; {@code batchIssued} once the
     * prioritized batch went out during the hold. */
    private record Hold(long sinceNanos, boolean batchIssued) {}

    public CompactionPriority(double ratio, int maxFiles, long maxBytes, long timeoutNanos, long holdNanos) {
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
        LevelInfo worst = worstLevel(s);
        Hold hold = holds.get(p);
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
        List<SstFile> candidates = new ArrayList<>(
                worst.files().stream().filter(f -> !f.beingCompacted()).toList());
        if (candidates.isEmpty()) {
            if (hold == null
                    && holdNanos > 0
                    && !s.autoCompactionsDisabled()
                    && s.l0Files() < l0Bound(s)
                    && nowNanos >= noHoldUntil.getOrDefault(p, Long.MIN_VALUE)) {
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
        candidates.sort(Comparator.comparingLong(SstFile::sizeBytes).reversed());
        List<String> chosen = new ArrayList<>();
        long bytes = 0;
        for (SstFile f : candidates) {
            if (chosen.size() >= maxFiles || (!chosen.isEmpty() && bytes + f.sizeBytes() > maxBytes)) {
                break;
            }
            chosen.add(f.name());
            bytes += f.sizeBytes();
        }
        pending.put(p, new Pending(worst.level(), new HashSet<>(chosen), nowNanos));
        if (hold != null) {
            holds.put(p, new Hold(hold.sinceNanos(), true));
        }
        out.add(new Action.CompactFiles(
                p,
                chosen,
                worst.level() + 1,
                String.format(
                        "L%d is %.1fx its target (%d > %d bytes): compact it before memory->L1 work (CruiseDB §VI-B)",
                        worst.level(), worst.score(), worst.bytes(), worst.targetBytes())));
    }

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
