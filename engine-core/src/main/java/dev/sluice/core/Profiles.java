package dev.sluice.core;

import dev.sluice.core.spi.Profile;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The registry of named profiles: core's {@code rocksdb-default} plus every {@link Profile} found through
 * ServiceLoader on the classpath. Two profiles with the same name are an error.
 */
public final class Profiles {
    private Profiles() {}

    /** All profiles by name. */
    public static Map<String, Profile> all() {
        Map<String, Profile> m = new TreeMap<>();
        m.put(RocksDbDefaultProfile.NAME, new RocksDbDefaultProfile());
        m.put(CruiseSpLsmProfile.NAME, new CruiseSpLsmProfile());
        m.put(RocksDbBloomProfile.NAME, new RocksDbBloomProfile());
        for (Profile p : ServiceLoader.load(Profile.class, Profiles.class.getClassLoader())) {
            Profile prev = m.putIfAbsent(p.name(), p);
            if (prev != null && prev.getClass() != p.getClass()) {
                throw new ConfigException("two profiles are named '" + p.name() + "': "
                        + prev.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return m;
    }

    /** The profile named {@code name}; {@link ConfigException} listing the known names otherwise. */
    public static Profile get(String name) {
        Map<String, Profile> all = all();
        Profile p = all.get(name);
        if (p == null) {
            throw new ConfigException(
                    SluiceConfig.PROFILE + " = '" + name + "' is not a known profile; known: " + all.keySet());
        }
        return p;
    }

    /** Stock RocksDB 9.10 settings: the baseline every benchmark compares against. */
    static final class RocksDbDefaultProfile implements Profile {
        static final String NAME = "rocksdb-default";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "Stock RocksDB 9.10.0 options, untouched (write_buffer_size 64 MiB, max_write_buffer_number 2, L0 triggers"
                    + " 4/20/36, max_background_jobs 2, level_compaction_dynamic_level_bytes true). The baseline.";
        }

        @Override
        public void apply(org.rocksdb.Options options, org.rocksdb.BlockBasedTableConfig tableConfig) {
            // Deliberately nothing: RocksDB's own defaults are the baseline.
        }
    }

    /** Bits per key of the Bloom filter that {@code cruise-sp-lsm} and {@code rocksdb-bloom} add (RocksDB's usual 10: ~1 %). */
    static final int BLOOM_BITS_PER_KEY = 10;

    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

    /**
     * Sets the {@value #BLOOM_BITS_PER_KEY}-bit Bloom filter on {@code table}. The table factory RocksDB builds from it
     * keeps its own reference to the native policy; the Java handle is freed once the partition's {@code options} are
     * unreachable (the pattern of the auto-tuned rate-limiter profile).
     */
    static void addBloomFilter(org.rocksdb.Options options, org.rocksdb.BlockBasedTableConfig table) {
        org.rocksdb.BloomFilter filter = new org.rocksdb.BloomFilter(BLOOM_BITS_PER_KEY);
        table.setFilterPolicy(filter);
        CLEANER.register(options, filter::close);
    }

    /**
     * Stock RocksDB plus a {@value #BLOOM_BITS_PER_KEY}-bit Bloom filter: the ablation that tells how much of a stack's read
     * latency comes from the filter that {@code cruise-sp-lsm} adds rather than from its controllers.
     */
    static final class RocksDbBloomProfile implements Profile {
        static final String NAME = "rocksdb-bloom";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "Stock RocksDB 9.10.0 options plus a 10-bit-per-key Bloom filter (full filter, the format RocksDB"
                    + " recommends). For ablations: the filter alone, without Sluice's controllers or SP-LSM.";
        }

        @Override
        public void apply(org.rocksdb.Options options, org.rocksdb.BlockBasedTableConfig tableConfig) {
            addBloomFilter(options, tableConfig);
        }
    }

    /**
     * CruiseDB's SP-LSM tree (§VI) as far as stock RocksDB allows.
     *
     * <ul>
     *   <li>Memory buffer up to 12 memtables (§VI-B-2): {@code max_write_buffer_number = 12} at the default 64 MiB
     *       write_buffer_size (768 MiB, the paper's "0.75 GB"), {@code min_write_buffer_number_to_merge = 1}.
     *   <li>L0 as a transit stage (§VI-A), an <b>approximation</b>: RocksDB cannot write a memtable straight into L1, so
     *       every flush still lands in L0, but {@code level0_file_num_compaction_trigger = 1} makes each flushed file
     *       eligible for L0→L1 compaction at once, and the L0 slowdown/stop triggers are raised to 100/200 so L0 alone
     *       practically never stalls writes (admission is what keeps inflow within capacity, as in the paper). Flush
     *       I/O therefore still exists (the paper's Theorem VI.1 removes it), and L0 holds a few files between a flush
     *       and its compaction. When L0→L1 merges lag, the backlog collects in L0 rather than in memory as it would in
     *       SP-LSM; admission sees it only with {@code watermark.source = unmerged} (memtables + L0, see
     *       {@code dev.sluice.ratelimit.admission.WatermarkSource}). Measured on the emulated disk (cruise-a-variant,
     *       before 6e7ee63): L0 grew to 14 files (~900 MB) while the memtable watermark stayed under 13 %.
     *   <li>No intra-L0 compactions (SP-LSM has no L0, so the paper has nothing like them): {@code max_compaction_bytes}
     *       = 3 × {@code write_buffer_size}. When the memory→L1 merge cannot start (a compaction of the base level holds
     *       its files), RocksDB merges L0 files into one L0 file instead, but only 4 or more of them within {@code
     *       max_compaction_bytes}; three flushed memtables exceed it. Such a compaction rewrites transit data the next
     *       merge reads again and, as RocksDB runs one L0 compaction at a time, keeps that merge from starting until it
     *       ends. Measured on cruise-a-variant (experiments 15 and 17 in docs/benchmarks.md, 2026-11-27): with them the
     *       merge stayed blocked for about a minute, the buffer reached 94–96 % and the P99 tail was 4,850 and 4,835 ops/s;
     *       without them 6,861 and 6,548 in the same runs. The option also cuts an output file whose overlap with the
     *       level below the output level passes it, so base-level files come out smaller.
     *   <li>Level size ratio 5 ({@code max_bytes_for_level_multiplier = 5}; stock and the paper's RocksDB: 10). The
     *       paper does not set a ratio. With random inserts every memory→L1 merge overlaps, and rewrites, the whole base
     *       level, and with dynamic level sizes the base level's target is the last level's size over the ratio, so at
     *       ratio 10 the base level, fed by SP-LSM's large merges faster than it drains into the last level, grew to
     *       1.4–1.7 GiB (about the last level's size) on cruise-a-variant and each merge rewrote all of it. At ratio 5
     *       the tree gains a level sooner and the base level stays smaller (at most 1.0–1.2 GiB before the base level
     *       moves up to L4, 0.4–0.9 GiB after), so merges are shorter.
     *       Measured on cruise-a-variant (experiment 18 in docs/benchmarks.md, 2026-11-27, 500 s, one run): P99 tail
     *       8,826 against 5,751 ops/s at ratio 10 in the same run (ratio 3: 8,002), last 100 s 11,386 against 8,002,
     *       write amplification 5.07 against 5.22, read amplification equal.
     *   <li>Parallel compaction (§VII): {@code max_background_jobs = 4}, {@code max_subcompactions = 2}.
     *   <li>A {@value #BLOOM_BITS_PER_KEY}-bit-per-key Bloom filter (not in the paper, and not in stock RocksDB's defaults).
     *       The transit L0 adds sorted runs that a point read must probe; without a filter each probe of an L0 file that
     *       does not hold the key still reads a data block. Measured on cruise-a-variant (300 s, 2026-11-25, before
     *       the filter): 2.53 device reads per Get against stock's 1.68, and the stack's read p50 0.50 ms against
     *       0.23 ms, growing with the number of L0 files. The {@code rocksdb-bloom} profile is the ablation (stock
     *       plus the same filter).
     * </ul>
     */
    static final class CruiseSpLsmProfile implements Profile {
        static final String NAME = "cruise-sp-lsm";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "CruiseDB SP-LSM (§VI), approximated on stock RocksDB: up to 12 memtables of 64 MiB; L0 as a transit"
                    + " stage (every flushed file compacts into L1 at once: L0 compaction trigger 1, L0 slowdown/stop 100/200,"
                    + " so L0 never stalls but flushes still write L0 files); no intra-L0 compactions (max_compaction_bytes"
                    + " = 3 x write_buffer_size); level size ratio 5 (stock 10: a smaller base level, which every"
                    + " memory->L1 merge of random keys rewrites); 4 background jobs, 2 subcompactions. With"
                    + " admission, set control.admission.watermark.source = unmerged so the watermark counts the transit"
                    + " L0 as part of SP-LSM's buffer. Adds a 10-bit-per-key Bloom filter (stock has none), so that point"
                    + " reads skip the transit L0 files that do not hold the key.";
        }

        @Override
        public void apply(org.rocksdb.Options o, org.rocksdb.BlockBasedTableConfig t) {
            o.setMaxWriteBufferNumber(12)
                    .setMinWriteBufferNumberToMerge(1)
                    .setLevel0FileNumCompactionTrigger(1)
                    .setLevel0SlowdownWritesTrigger(100)
                    .setLevel0StopWritesTrigger(200)
                    .setMaxBackgroundJobs(4)
                    .setMaxSubcompactions(2)
                    .setMaxCompactionBytes(3 * o.writeBufferSize())
                    .setMaxBytesForLevelMultiplier(5);
            addBloomFilter(o, t);
        }
    }
}
