package dev.sluice.bench.profile;

import dev.sluice.core.Profiles;
import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * {@code cruise-sp-lsm} with four tree-shape options set per benchmark stack, for experiments on how much data one
 * memory→L1 merge takes and how large the base level may grow (CruiseDB §VI-B: SP-LSM merges the memory buffer into
 * L1 "later when the system is relatively idle"; on stock RocksDB the transit L0's compaction trigger decides how many
 * flushed memtables one merge takes).
 *
 * <p>System properties (a scenario sets them per stack with {@code sysprop.…}): {@value #L0_TRIGGER_PROPERTY}
 * ({@code level0_file_num_compaction_trigger}, default: the profile's), {@value #BASE_BYTES_PROPERTY}
 * ({@code max_bytes_for_level_base}), {@value #MULTIPLIER_PROPERTY} ({@code max_bytes_for_level_multiplier}) and
 * {@value #MAX_COMPACTION_BYTES_PROPERTY} ({@code max_compaction_bytes}; RocksDB's intra-L0 compaction takes at least 4
 * L0 files within it, so a value below four flushed memtables rules it out, as {@code cruise-sp-lsm}'s does);
 * unset means {@code cruise-sp-lsm}'s value. Lives in jmh-bench because only the benchmarks need it.
 */
public final class SpLsmVariantProfile implements Profile {
    public static final String NAME = "cruise-sp-lsm-variant";
    public static final String L0_TRIGGER_PROPERTY = "sluice.splsm.l0.trigger";
    public static final String BASE_BYTES_PROPERTY = "sluice.splsm.level.base.bytes";
    public static final String MULTIPLIER_PROPERTY = "sluice.splsm.level.multiplier";
    public static final String MAX_COMPACTION_BYTES_PROPERTY = "sluice.splsm.max.compaction.bytes";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "cruise-sp-lsm with level0_file_num_compaction_trigger -D" + L0_TRIGGER_PROPERTY
                + ", max_bytes_for_level_base -D" + BASE_BYTES_PROPERTY + ", max_bytes_for_level_multiplier -D"
                + MULTIPLIER_PROPERTY + " and max_compaction_bytes -D" + MAX_COMPACTION_BYTES_PROPERTY
                + " (unset: cruise-sp-lsm's values). For experiments on the tree's shape.";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        Profiles.get("cruise-sp-lsm").apply(options, tableConfig);
        int trigger =
                (int) HandTunedProfile.property(L0_TRIGGER_PROPERTY, options.level0FileNumCompactionTrigger(), 1, 64);
        options.setLevel0FileNumCompactionTrigger(trigger);
        options.setMaxBytesForLevelBase(
                HandTunedProfile.property(BASE_BYTES_PROPERTY, options.maxBytesForLevelBase(), 1L << 20, 1L << 40));
        options.setMaxBytesForLevelMultiplier(
                HandTunedProfile.property(MULTIPLIER_PROPERTY, (long) options.maxBytesForLevelMultiplier(), 2, 100));
        options.setMaxCompactionBytes(HandTunedProfile.property(
                MAX_COMPACTION_BYTES_PROPERTY, options.maxCompactionBytes(), 1L << 20, 1L << 40));
    }
}
