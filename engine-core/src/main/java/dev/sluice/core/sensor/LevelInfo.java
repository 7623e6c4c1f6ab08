package dev.sluice.core.sensor;

import java.util.Arrays;
import java.util.List;

/**
 * One LSM level: its files, total bytes and target size. For L0 the target is 0 (L0 is bounded by file count, see
 * {@link LsmSnapshot#l0SlowdownTrigger()}). Targets follow RocksDB's rules: static {@code max_bytes_for_level_base ×
 * multiplier^(n-1) × additional[n-1]}, or, with {@code level_compaction_dynamic_level_bytes}, derived back from the last
 * level's size (an estimate of what RocksDB computes internally).
 */
public record LevelInfo(int level, int fileCount, long bytes, long targetBytes, List<SstFile> files) {
    public LevelInfo {
        files = List.copyOf(files);
    }

    /**
     * The deep-compaction debt: bytes above target in the levels between L0 and the last non-empty level, {@code
     * bytes.get(i)} and {@code targets.get(i)} being level i's (null entries count as empty / no target). L0 is left
     * out (it is bounded by file count, and SP-LSM's buffer), and so is the last level (its target is its size). RocksDB's
     * pending-compaction estimate also counts L0 and multiplies each level's excess by the fanout below it, so it grows
     * with the data size on a profile that keeps L0 files on purpose; this does not. Used by admission's debt ceiling
     * and the benchmark summary's "levels over target" rows.
     */
    public static long excessBytes(List<Long> bytes, List<Long> targets) {
        int last = -1;
        for (int i = bytes.size() - 1; i >= 1; i--) {
            if (bytes.get(i) != null && bytes.get(i) > 0) {
                last = i;
                break;
            }
        }
        long excess = 0;
        for (int i = 1; i < last && i < targets.size(); i++) {
            Long b = bytes.get(i), t = targets.get(i);
            if (b != null && t != null && t > 0 && b > t) {
                excess += b - t;
            }
        }
        return excess;
    }

    /**
     * {@link #excessBytes(List, List)} of these levels, each placed by its {@link #level()} (a level missing from the
     * list counts as empty), so the result does not depend on the list's order or on every level being listed.
     */
    public static long excessBytes(List<LevelInfo> levels) {
        int n = 0;
        for (LevelInfo l : levels) {
            n = Math.max(n, l.level() + 1);
        }
        Long[] bytes = new Long[n], targets = new Long[n];
        for (LevelInfo l : levels) {
            bytes[l.level()] = l.bytes();
            targets[l.level()] = l.targetBytes();
        }
        return excessBytes(Arrays.asList(bytes), Arrays.asList(targets));
    }

    /** bytes / target, or 0 when the level has no target. */
    public double score() {
        return targetBytes <= 0 ? 0 : (double) bytes / targetBytes;
    }
}
