package dev.sluice.bench.profile;

import dev.sluice.core.Profiles;
import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.Priority;

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
 *
 * <p>Three more for experiments on how much CPU compactions take from user requests on a small machine (2 cores):
 * {@value #JOBS_PROPERTY} ({@code max_background_jobs}), {@value #SUBCOMPACTIONS_PROPERTY} ({@code
 * max_subcompactions}) and {@value #COMPACTION_CPU_PROPERTY}: {@code low} lowers the CPU priority of RocksDB's
 * compaction thread pool (the LOW pool of {@code Env::Default()}, which the priority Env's composite Env shares) to
 * nice 19 with {@code Env::LowerThreadPoolCPUPriority}; subcompaction threads, created by a pool thread, inherit it.
 * It is process-wide and cannot be undone, which is harmless in a benchmark stack's own JVM.
 */
public final class SpLsmVariantProfile implements Profile {
    public static final String NAME = "cruise-sp-lsm-variant";
    public static final String L0_TRIGGER_PROPERTY = "sluice.splsm.l0.trigger";
    public static final String BASE_BYTES_PROPERTY = "sluice.splsm.level.base.bytes";
    public static final String MULTIPLIER_PROPERTY = "sluice.splsm.level.multiplier";
    public static final String MAX_COMPACTION_BYTES_PROPERTY = "sluice.splsm.max.compaction.bytes";
    public static final String JOBS_PROPERTY = "sluice.splsm.max.background.jobs";
    public static final String SUBCOMPACTIONS_PROPERTY = "sluice.splsm.max.subcompactions";
    public static final String COMPACTION_CPU_PROPERTY = "sluice.splsm.compaction.cpu";

    /** Each numeric property's allowed range, [min, max] (see {@link HandTunedProfile#check}). */
    static final java.util.Map<String, long[]> RANGES = java.util.Map.of(
            L0_TRIGGER_PROPERTY, new long[] {1, 64},
            BASE_BYTES_PROPERTY, new long[] {1L << 20, 1L << 40},
            MULTIPLIER_PROPERTY, new long[] {2, 100},
            MAX_COMPACTION_BYTES_PROPERTY, new long[] {1L << 20, 1L << 40},
            JOBS_PROPERTY, new long[] {2, 64},
            SUBCOMPACTIONS_PROPERTY, new long[] {1, 64});

    /** Whether {@code -Dsluice.splsm.compaction.cpu} asks for low priority (low | normal). */
    static boolean cpuPriority(String value) {
        return switch (value.trim()) {
            case "normal" -> false;
            case "low" -> true;
            default ->
                throw new IllegalArgumentException(
                        "-D" + COMPACTION_CPU_PROPERTY + " = '" + value.trim() + "': expected low or normal");
        };
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "cruise-sp-lsm with level0_file_num_compaction_trigger -D" + L0_TRIGGER_PROPERTY
                + ", max_bytes_for_level_base -D" + BASE_BYTES_PROPERTY + ", max_bytes_for_level_multiplier -D"
                + MULTIPLIER_PROPERTY + ", max_compaction_bytes -D" + MAX_COMPACTION_BYTES_PROPERTY
                + ", max_background_jobs -D" + JOBS_PROPERTY + " and max_subcompactions -D" + SUBCOMPACTIONS_PROPERTY
                + " (unset: cruise-sp-lsm's values), and the compaction pool's CPU priority -D"
                + COMPACTION_CPU_PROPERTY + " = low | normal (default normal). For experiments on the tree's shape and"
                + " on compactions' share of the machine.";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        Profiles.get("cruise-sp-lsm").apply(options, tableConfig);
        int trigger = (int) HandTunedProfile.property(L0_TRIGGER_PROPERTY, options.level0FileNumCompactionTrigger());
        options.setLevel0FileNumCompactionTrigger(trigger);
        options.setMaxBytesForLevelBase(HandTunedProfile.property(BASE_BYTES_PROPERTY, options.maxBytesForLevelBase()));
        options.setMaxBytesForLevelMultiplier(
                HandTunedProfile.property(MULTIPLIER_PROPERTY, (long) options.maxBytesForLevelMultiplier()));
        options.setMaxCompactionBytes(
                HandTunedProfile.property(MAX_COMPACTION_BYTES_PROPERTY, options.maxCompactionBytes()));
        options.setMaxBackgroundJobs((int) HandTunedProfile.property(JOBS_PROPERTY, options.maxBackgroundJobs()));
        options.setMaxSubcompactions(
                (int) HandTunedProfile.property(SUBCOMPACTIONS_PROPERTY, options.maxSubcompactions()));
        if (cpuPriority(System.getProperty(COMPACTION_CPU_PROPERTY, "normal"))) {
            Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW);
        }
    }
}
