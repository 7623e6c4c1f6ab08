package dev.sluice.core.sensor;

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

    /** bytes / target, or 0 when the level has no target. */
    public double score() {
        return targetBytes <= 0 ? 0 : (double) bytes / targetBytes;
    }
}
