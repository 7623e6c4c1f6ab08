package dev.sluice.compaction.rocksdb;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompactionPriority;
import org.rocksdb.Options;

/**
 * vLSM's tree shape (vLSM §4.1–§4.2) on stock RocksDB: small SSTs, an L1 of only f SSTs, a large growth factor Φ
 * between L1 and L2 and the regular f below. What each option does and which part of the paper is exact or approximate:
 * VLSM.md next to this class.
 *
 * <ul>
 *   <li>{@code target_file_size_base} = S (8 MiB) and {@code write_buffer_size} = S: a flushed memtable is one small
 *       L0 SST, so moving one L0 file to L1 moves one SST's worth of data (§4.1). {@code max_write_buffer_number} =
 *       128 MiB / S (at most 16) keeps stock RocksDB's memtable memory (2 × 64 MiB) at S = 8 MiB, so the comparison
 *       does not buy memory.
 *   <li>Static level targets ({@code level_compaction_dynamic_level_bytes = false}): L1 = f × S ({@code
 *       max_bytes_for_level_base}), L2 = Φ × L1 ({@code max_bytes_for_level_multiplier} f × {@code
 *       max_bytes_for_level_multiplier_additional[1]} Φ/f), f below.
 *   <li>{@code max_compaction_bytes} = f × S: RocksDB cuts an output file of an L0→L1 compaction once its overlap with
 *       L2 plus its own size would pass it — L1 files cut by their overlap with L2 (§4.2.1, approximated).
 *   <li>{@code compaction_pri = kMinOverlappingRatio}: L1→L2 picks the L1 file with the least L2 overlap per byte
 *       (§4.2.2; the paper uses the same RocksDB picker).
 *   <li>L0 triggers stay RocksDB's (4/20/36): without the {@code vlsm-l0} controller RocksDB's own tiered L0→L1
 *       compaction runs; with it, the controller moves one L0 SST at a time (see {@link dev.sluice.compaction.vlsm.VlsmL0}).
 * </ul>
 *
 * <p>{@link #ofSstBytes} scales the same shape to another SST size (tests use a small one).
 */
public class VlsmProfile implements Profile {
    public static final String NAME = "vlsm";
    /** S, the SST (and memtable) size: 8 MiB (vLSM §6). */
    public static final long SST_BYTES = 8L << 20;
    /** f, the growth factor everywhere except between L1 and L2. */
    public static final int F = 8;
    /** Φ, the growth factor between L1 and L2 (vLSM §4.1: "values of Φ up to 32"). */
    public static final int PHI = 32;
    /** Memtable memory of stock RocksDB (2 × 64 MiB), kept by this profile. */
    static final long MEMTABLE_BUDGET_BYTES = 128L << 20;

    private final String name;
    private final long sstBytes;

    public VlsmProfile() {
        this(NAME, SST_BYTES);
    }

    protected VlsmProfile(String name, long sstBytes) {
        if (sstBytes < 64 << 10) {
            throw new IllegalArgumentException("vLSM SST size must be at least 64 KiB, was " + sstBytes);
        }
        this.name = name;
        this.sstBytes = sstBytes;
    }

    /** The vLSM shape with another SST size S, registered under {@code name}. */
    public static VlsmProfile ofSstBytes(String name, long sstBytes) {
        return new VlsmProfile(name, sstBytes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "vLSM (§4) tree shape: " + human(sstBytes) + " SSTs and memtables (up to " + memtables()
                + " memtables), static levels L1 = f x SST = " + human(F * sstBytes)
                + ", L2 = Φ x L1 (Φ = " + PHI + "), f = " + F + " below; L1 files cut by their L2 overlap"
                + " (max_compaction_bytes = f x SST) and picked by least overlap (kMinOverlappingRatio); L0 triggers"
                + " stock 4/20/36. Add the vlsm-l0 controller for FIFO single-SST L0->L1 compactions.";
    }

    private int memtables() {
        return (int) Math.min(16, Math.max(2, MEMTABLE_BUDGET_BYTES / sstBytes));
    }

    @Override
    public void apply(Options o, BlockBasedTableConfig t) {
        o.setWriteBufferSize(sstBytes)
                .setMaxWriteBufferNumber(memtables())
                .setMinWriteBufferNumberToMerge(1)
                .setTargetFileSizeBase(sstBytes)
                .setTargetFileSizeMultiplier(1)
                .setLevelCompactionDynamicLevelBytes(false)
                .setMaxBytesForLevelBase(F * sstBytes)
                .setMaxBytesForLevelMultiplier(F)
                .setMaxBytesForLevelMultiplierAdditional(new int[] {1, PHI / F, 1, 1, 1, 1})
                .setMaxCompactionBytes(F * sstBytes)
                .setCompactionPriority(CompactionPriority.MinOverlappingRatio)
                .setLevel0FileNumCompactionTrigger(4)
                .setLevel0SlowdownWritesTrigger(20)
                .setLevel0StopWritesTrigger(36);
    }

    static String human(long bytes) {
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
