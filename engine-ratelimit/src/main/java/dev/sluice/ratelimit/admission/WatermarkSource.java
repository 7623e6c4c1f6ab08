package dev.sluice.ratelimit.admission;

import dev.sluice.core.sensor.LsmSnapshot;
import java.util.Locale;

/**
 * Which fill level the adaptive admission controller holds at its target (CruiseDB's y_k, §V-A).
 *
 * <ul>
 *   <li>{@link #MEMTABLE}: memtables / write-buffer budget ({@link LsmSnapshot#memtableWatermark()}) — the paper's
 *       reading on a tree whose memory buffer is the only place writes wait.
 *   <li>{@link #UNMERGED}: (memtables + L0 bytes not yet merged) / write-buffer budget ({@link
 *       LsmSnapshot#unmergedWatermark()}) — for the {@code cruise-sp-lsm} profile. CruiseDB's SP-LSM has no L0: its
 *       memtables merge straight into L1, so a slow L1 merge fills memory and admission reacts. Stock RocksDB cannot
 *       remove L0 (see {@code Profiles}), so Sluice flushes to L0 and compacts it at once; when that compaction lags, the
 *       backlog piles up in L0 instead of memory and the memtable watermark stays low (measured on cruise-a-variant: L0
 *       at 14 files, ~900 MB, memtable watermark under 13 %). Counting L0 restores the paper's signal. Files in a
 *       running merge count by the part the merge has not read yet (RocksDB thread status): counting them in full froze
 *       the watermark above the target for ~60 s while one merge of 8 files ran (Eq. 2 cut the rate to {@code
 *       min.rate}), and leaving them out hid a merge starved by user I/O (measured, docs/benchmarks.md).
 * </ul>
 */
public enum WatermarkSource {
    MEMTABLE,
    UNMERGED;

    public double of(LsmSnapshot s) {
        return this == MEMTABLE ? s.memtableWatermark() : s.unmergedWatermark();
    }

    /** Parses "memtable" or "unmerged" (case-insensitive); null means the default, {@link #MEMTABLE}. */
    public static WatermarkSource parse(String value) {
        if (value == null) {
            return MEMTABLE;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "memtable" -> MEMTABLE;
            case "unmerged" -> UNMERGED;
            default ->
                throw new IllegalArgumentException(
                        "option 'watermark.source' = '" + value + "' must be 'memtable' or 'unmerged'");
        };
    }
}
