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
 * {@code ratio} (default 5); if no manual compaction of this controller is still pending there, pick up to {@code
 * max.files} of its files that are not being compacted (largest first, at most {@code max.bytes} in total) and emit
 * {@code compactFiles(files → L+1)}.
 *
 * <p><b>How this approximates the paper.</b> RocksDB's own picker cannot be reordered from outside. Sluice gets the
 * priority by starting the oversized level's compaction at once on its own manual-compaction thread instead of leaving
 * it in RocksDB's queue behind L0→L1 work; it does not pause L0→L1 compactions. Targets come from the snapshot (RocksDB's
 * static targets, or an estimate of its dynamic ones).
 *
 * <p>A batch counts as pending until none of its files is in the level any more, or {@code timeout.seconds} passed.
 * Pure: time arrives as {@code nowNanos}; not thread-safe.
 */
public final class CompactionPriority implements ControlLoop {
    private final double ratio;
    private final int maxFiles;
    private final long maxBytes;
    private final long timeoutNanos;
    private final Map<String, Pending> pending = new HashMap<>();

    private record Pending(int level, Set<String> files, long sinceNanos) {}

    public CompactionPriority(double ratio, int maxFiles, long maxBytes, long timeoutNanos) {
        this.ratio = ratio;
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public String name() {
        return "cruise-compaction-priority";
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot s : snapshot.partitions().values()) {
            Pending p = pending.get(s.partition());
            if (p != null) {
                if (stillThere(s, p) && nowNanos - p.sinceNanos() < timeoutNanos) {
                    continue;
                }
                pending.remove(s.partition());
            }
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
            if (worst == null) {
                continue;
            }
            List<SstFile> candidates = new ArrayList<>(
                    worst.files().stream().filter(f -> !f.beingCompacted()).toList());
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
            if (chosen.isEmpty()) {
                continue;
            }
            pending.put(s.partition(), new Pending(worst.level(), new HashSet<>(chosen), nowNanos));
            out.add(new Action.CompactFiles(
                    s.partition(),
                    chosen,
                    worst.level() + 1,
                    String.format(
                            "L%d is %.1fx its target (%d > %d bytes): compact it before memory->L1 work (CruiseDB §VI-B)",
                            worst.level(), worst.score(), worst.bytes(), worst.targetBytes())));
        }
        return out;
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
