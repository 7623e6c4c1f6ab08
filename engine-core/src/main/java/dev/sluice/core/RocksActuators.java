package dev.sluice.core;

import dev.sluice.core.control.ActionFailure;
import dev.sluice.core.control.Actuators;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.control.ControlEventLog;
import dev.sluice.core.spi.IoControl;
import dev.sluice.core.spi.StorageEnv;
import java.lang.reflect.Constructor;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.rocksdb.CompactionOptions;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.MutableDBOptions;
import org.rocksdb.RocksDBException;

/**
 * Maps {@link Actuators} onto rocksdbjni: {@code setOptions} for column-family knobs, {@code setDBOptions} for
 * max_background_jobs, a per-partition {@code ConcurrentTaskLimiter} for compaction concurrency, the admission gate,
 * and {@code compactFiles} on a dedicated single thread (manual compactions block for their whole run, so they never run
 * on the tick thread; their results are recorded as control events).
 */
final class RocksActuators implements Actuators {
    private final Map<String, RocksPartition> partitions;
    private final StorageEnv env;
    private final ExecutorService manualCompactions;
    private final ControlEventLog events;
    private final Clock clock;
    private final LongSupplier ticker;

    RocksActuators(
            Map<String, RocksPartition> partitions,
            StorageEnv env,
            ExecutorService manualCompactions,
            ControlEventLog events,
            Clock clock,
            LongSupplier ticker) {
        this.partitions = partitions;
        this.env = env;
        this.manualCompactions = manualCompactions;
        this.events = events;
        this.clock = clock;
        this.ticker = ticker;
    }

    private RocksPartition p(String name) {
        RocksPartition p = partitions.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no partition '" + name + "'; have " + partitions.keySet());
        }
        return p;
    }

    private void setCf(String partition, MutableColumnFamilyOptions.MutableColumnFamilyOptionsBuilder b, String what) {
        RocksPartition p = p(partition);
        p.enter(); // Partition.resume() may replace the DB
        try {
            p.db().setOptions(b.build());
        } catch (RocksDBException e) {
            throw new ActionFailure(
                    "partition '" + partition + "': RocksDB refused " + what + ": " + RocksPartition.describe(e));
        } finally {
            p.exit();
        }
    }

    private static void positive(String what, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be > 0, was " + v);
        }
    }

    @Override
    public Set<String> partitions() {
        return partitions.keySet();
    }

    @Override
    public void setAdmissionRate(String partition, double requestsPerSecond) {
        if (!(requestsPerSecond > 0)) {
            throw new IllegalArgumentException("admission rate must be > 0, was " + requestsPerSecond);
        }
        p(partition).gate().setRate(requestsPerSecond);
    }

    @Override
    public void setMaxBackgroundJobs(String partition, int jobs) {
        positive("max_background_jobs", jobs);
        setDb(
                partition,
                MutableDBOptions.builder().setMaxBackgroundJobs(jobs).build(),
                "max_background_jobs=" + jobs,
                p -> p.maxBackgroundJobs = jobs);
    }

    @Override
    public void setMaxSubcompactions(String partition, int subcompactions) {
        positive("max_subcompactions", subcompactions);
        setDb(
                partition,
                unlistedDbOption("max_subcompactions", Integer.toString(subcompactions)),
                "max_subcompactions=" + subcompactions,
                p -> p.maxSubcompactions = subcompactions);
    }

    /** Applies DB options to the partition's live DB and, once RocksDB accepted them, records them with {@code applied}. */
    private void setDb(String partition, MutableDBOptions options, String what, Consumer<RocksPartition> applied) {
        RocksPartition p = p(partition);
        p.enter(); // Partition.resume() may replace the DB
        try {
            p.db().setDBOptions(options);
            applied.accept(p);
        } catch (RocksDBException e) {
            throw new ActionFailure(
                    "partition '" + partition + "': RocksDB refused " + what + ": " + RocksPartition.describe(e));
        } finally {
            p.exit();
        }
    }

    /**
     * A DB option that RocksDB 9.10 can change on a live DB ({@code DBOptions::max_subcompactions} is marked "dynamically
     * changeable through SetDBOptions()") but that rocksdbjni's {@link MutableDBOptions} builder does not list. {@code
     * RocksDB.setDBOptions} passes keys and values as strings to {@code DB::SetDBOptions}, so the options object is
     * built from them directly (its constructor is private); RocksDB itself validates the key and value.
     * {@code AdocNodeTest} reads the value back from the OPTIONS file RocksDB rewrites.
     */
    static MutableDBOptions unlistedDbOption(String key, String value) {
        try {
            Constructor<MutableDBOptions> c =
                    MutableDBOptions.class.getDeclaredConstructor(String[].class, String[].class);
            c.setAccessible(true);
            return c.newInstance(new String[] {key}, new String[] {value});
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ActionFailure("rocksdbjni offers no way to set DB option " + key + " (" + e + ")");
        }
    }

    @Override
    public void setWriteBufferSize(String partition, long bytes) {
        positive("write_buffer_size", bytes);
        setCf(partition, MutableColumnFamilyOptions.builder().setWriteBufferSize(bytes), "write_buffer_size=" + bytes);
    }

    @Override
    public void setMaxWriteBufferNumber(String partition, int count) {
        positive("max_write_buffer_number", count);
        setCf(
                partition,
                MutableColumnFamilyOptions.builder().setMaxWriteBufferNumber(count),
                "max_write_buffer_number=" + count);
    }

    @Override
    public void setLevelTargets(String partition, long levelBaseBytes, double multiplier, List<Integer> additional) {
        positive("max_bytes_for_level_base", levelBaseBytes);
        if (!(multiplier >= 1)) {
            throw new IllegalArgumentException("max_bytes_for_level_multiplier must be >= 1, was " + multiplier);
        }
        MutableColumnFamilyOptions.MutableColumnFamilyOptionsBuilder b = MutableColumnFamilyOptions.builder()
                .setMaxBytesForLevelBase(levelBaseBytes)
                .setMaxBytesForLevelMultiplier(multiplier);
        if (!additional.isEmpty() && p(partition).options().levelCompactionDynamicLevelBytes()) {
            throw new ActionFailure(
                    "partition '" + partition + "': max_bytes_for_level_multiplier_additional is ignored by"
                            + " RocksDB with level_compaction_dynamic_level_bytes=true (this partition's profile); use a profile"
                            + " with static level sizes");
        }
        if (!additional.isEmpty()) {
            b.setMaxBytesForLevelMultiplierAdditional(
                    additional.stream().mapToInt(Integer::intValue).toArray());
        }
        setCf(partition, b, "level targets");
    }

    @Override
    public void setL0Triggers(String partition, int compactionTrigger, int slowdownTrigger, int stopTrigger) {
        positive("level0_file_num_compaction_trigger", compactionTrigger);
        if (slowdownTrigger < compactionTrigger || stopTrigger < slowdownTrigger) {
            throw new IllegalArgumentException("level0 triggers must satisfy compaction <= slowdown <= stop, were "
                    + compactionTrigger + ", " + slowdownTrigger + ", " + stopTrigger);
        }
        setCf(
                partition,
                MutableColumnFamilyOptions.builder()
                        .setLevel0FileNumCompactionTrigger(compactionTrigger)
                        .setLevel0SlowdownWritesTrigger(slowdownTrigger)
                        .setLevel0StopWritesTrigger(stopTrigger),
                "level0 triggers");
    }

    @Override
    public void setPendingCompactionLimits(String partition, long softBytes, long hardBytes) {
        if (softBytes < 0 || hardBytes < 0 || (hardBytes > 0 && softBytes > hardBytes)) {
            throw new IllegalArgumentException(
                    "pending compaction limits must be >= 0 with soft <= hard, were " + softBytes + ", " + hardBytes);
        }
        setCf(
                partition,
                MutableColumnFamilyOptions.builder()
                        .setSoftPendingCompactionBytesLimit(softBytes)
                        .setHardPendingCompactionBytesLimit(hardBytes),
                "pending compaction limits");
    }

    @Override
    public void setCompactionConcurrency(String partition, int maxConcurrent) {
        RocksPartition p = p(partition);
        if (maxConcurrent < 0) {
            p.compactionLimiter().resetMaxOutstandingTask();
        } else {
            p.compactionLimiter().setMaxOutstandingTask(maxConcurrent);
        }
    }

    @Override
    public void setAutoCompactions(String partition, boolean enabled) {
        setCf(
                partition,
                MutableColumnFamilyOptions.builder().setDisableAutoCompactions(!enabled),
                "disable_auto_compactions");
    }

    @Override
    public void compactFiles(String partition, List<String> fileNames, int outputLevel, String reason) {
        RocksPartition p = p(partition);
        if (outputLevel < 0 || outputLevel >= p.options().numLevels()) {
            throw new IllegalArgumentException("output level " + outputLevel + " is outside 0.."
                    + (p.options().numLevels() - 1));
        }
        List<String> files = List.copyOf(fileNames);
        if (files.isEmpty()) {
            throw new IllegalArgumentException("compactFiles needs at least one file");
        }
        try {
            manualCompactions.execute(() -> runCompaction(p, files, outputLevel, reason));
        } catch (RejectedExecutionException e) {
            throw new ActionFailure("partition '" + partition + "': too many manual compactions queued");
        }
    }

    /**
     * RocksDB's target file size of {@code level} ≥ 1: target_file_size_base × target_file_size_multiplier^(level − 1)
     * (with dynamic level bytes RocksDB counts from the base level instead; with the default multiplier 1 both agree).
     */
    static long targetFileSize(RocksPartition p, int level) throws RocksDBException {
        MutableColumnFamilyOptions.MutableColumnFamilyOptionsBuilder o = p.db().getOptions();
        double size = o.targetFileSizeBase() * Math.pow(Math.max(1, o.targetFileSizeMultiplier()), level - 1);
        return size >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) size);
    }

    private void runCompaction(RocksPartition p, List<String> files, int outputLevel, String reason) {
        String action = "compact_files " + files + " -> L" + outputLevel;
        String knob = p.name() + "/compact_files:" + files.get(0);
        long start = ticker.getAsLong();
        try (CompactionOptions co = new CompactionOptions()) {
            if (outputLevel > 0) {
                // CompactionOptions defaults to one unbounded output file; cut at the level's target file size, as
                // RocksDB's own compactions do (a FIFO L0->L1 move otherwise left all of L1 in one file)
                co.setOutputFileSizeLimit(targetFileSize(p, outputLevel));
            }
            List<String> out = p.compactFilesGuarded(co, files, outputLevel);
            events.record(new ControlEvent(
                    clock.instant(),
                    ticker.getAsLong(),
                    "manual-compaction",
                    p.name(),
                    knob,
                    action,
                    reason,
                    ControlEvent.Outcome.APPLIED,
                    "done in " + (ticker.getAsLong() - start) / 1_000_000 + " ms; outputs " + out));
        } catch (RuntimeException | RocksDBException e) {
            events.record(new ControlEvent(
                    clock.instant(),
                    ticker.getAsLong(),
                    "manual-compaction",
                    p.name(),
                    knob,
                    action,
                    reason,
                    ControlEvent.Outcome.FAILED,
                    e instanceof RocksDBException r ? RocksPartition.describe(r) : String.valueOf(e.getMessage())));
        }
    }

    @Override
    public Optional<IoControl> io() {
        return env == null ? Optional.empty() : env.control();
    }
}
