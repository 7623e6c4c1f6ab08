package dev.sluice.bench.profile;

import dev.sluice.core.Profiles;
import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * A hand-tuned static RocksDB: stock options ({@code rocksdb-default}) with more background threads and larger
 * memtables, fixed for the whole run — ADOC's SILK-O setting (ADOC §6.1: "8 background threads and 512MB batch size",
 * found by exhaustive search), the static configuration ADOC's online tuning is compared with.
 *
 * <p>Values: system properties {@value #JOBS_PROPERTY} (default {@value #DEFAULT_JOBS}) and {@value #BATCH_PROPERTY}
 * in bytes (default {@value #DEFAULT_BATCH_BYTES}, 512 MiB), so a scenario can scale them per stack ({@code
 * sysprop.…}), and {@value #SUBCOMPACTIONS_PROPERTY} (default 1: the threads one L0→L1 compaction may split into).
 * max_write_buffer_number stays at the stock 2; flush slots follow RocksDB's {@code max_background_jobs / 4}.
 *
 * <p>Lives in jmh-bench because only the benchmarks need it; registered in {@code META-INF/services}.
 */
public final class HandTunedProfile implements Profile {
    public static final String NAME = "rocksdb-tuned";
    public static final String JOBS_PROPERTY = "sluice.tuned.background.jobs";
    public static final String BATCH_PROPERTY = "sluice.tuned.write.buffer.bytes";
    public static final String SUBCOMPACTIONS_PROPERTY = "sluice.tuned.max.subcompactions";
    public static final int DEFAULT_JOBS = 8;
    public static final long DEFAULT_BATCH_BYTES = 536_870_912L;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Stock RocksDB with a static hand-tuned thread count and batch size: max_background_jobs -D"
                + JOBS_PROPERTY
                + " (default 8), write_buffer_size -D" + BATCH_PROPERTY + " (default 512 MiB), max_subcompactions -D"
                + SUBCOMPACTIONS_PROPERTY + " (default 1); defaults: ADOC's SILK-O setting (§6.1).";
    }

    /** Each property's allowed range, [min, max]: read by {@link #apply} and checked up front by {@link #check}. */
    static final java.util.Map<String, long[]> RANGES = java.util.Map.of(
            JOBS_PROPERTY, new long[] {1, 256},
            BATCH_PROPERTY, new long[] {1L << 20, 64L << 30},
            SUBCOMPACTIONS_PROPERTY, new long[] {1, 64});

    /**
     * Checks a {@code -Dsluice.tuned.*} or {@code -Dsluice.splsm.*} value the way {@link #apply} reads it, before a
     * benchmark starts (until 2026-11-28 a bad value failed only in the stack's JVM, after output was written).
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed; for a name no profile
     *     reads, listing the ones that exist
     */
    public static void check(String key, String value) {
        long[] r = RANGES.get(key);
        if (r == null) {
            r = SpLsmVariantProfile.RANGES.get(key);
        }
        if (r != null) {
            parse(key, value, r[0], r[1]);
            return;
        }
        if (key.equals(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY)) {
            SpLsmVariantProfile.cpuPriority(value);
            return;
        }
        java.util.TreeSet<String> known = new java.util.TreeSet<>(RANGES.keySet());
        known.addAll(SpLsmVariantProfile.RANGES.keySet());
        known.add(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY);
        known.add(AutoTunedRateLimiterProfile.RATE_PROPERTY);
        throw new IllegalArgumentException("-D" + key + ": no profile reads it (known: " + known + ")");
    }

    static long property(String key, long fallback) {
        long[] r = RANGES.containsKey(key) ? RANGES.get(key) : SpLsmVariantProfile.RANGES.get(key);
        String v = System.getProperty(key);
        return v == null || v.isBlank() ? fallback : parse(key, v, r[0], r[1]);
    }

    private static long parse(String key, String v, long min, long max) {
        long r;
        try {
            r = Long.parseLong(v.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + key + " = '" + v + "' is not a whole number");
        }
        if (r < min || r > max) {
            throw new IllegalArgumentException("-D" + key + " = " + r + " is out of range [" + min + ", " + max + "]");
        }
        return r;
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        Profiles.get("rocksdb-default").apply(options, tableConfig);
        options.setMaxBackgroundJobs((int) property(JOBS_PROPERTY, DEFAULT_JOBS))
                .setWriteBufferSize(property(BATCH_PROPERTY, DEFAULT_BATCH_BYTES))
                .setMaxSubcompactions((int) property(SUBCOMPACTIONS_PROPERTY, 1));
    }
}
