package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.spi.IoControl;
import dev.sluice.core.spi.IoPolicy;
import dev.sluice.core.spi.StorageEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongFunction;
import org.rocksdb.Env;
import org.rocksdb.SluiceEnvHandle;

/**
 * Sluice's native priority Env (docs/architecture.md §3.3): a RocksDB {@code FileSystemWrapper} built into a composite Env that
 * classifies every file I/O into an {@link IoClass}, accounts it, schedules it (per-class caps and a node {@link
 * IoPolicy}), optionally passes it through an emulated cloud volume ({@link ContractDevice}), can inject faults and can
 * emulate a power cut for durability tests ({@link #powerCut()}).
 *
 * <p>Use: {@code try (PriorityEnv env = PriorityEnv.open(cfg)) { options.setEnv(env.env()); ... }}. One instance serves
 * every partition of a node (one node-level scheduler); call {@link #registerPartition} before opening each partition's
 * DB and {@link #updateFileLevels} after flushes and compactions so compaction I/O is split by level.
 *
 * <p><b>Close order</b>: every {@code RocksDB} and {@code Options}/{@code DBOptions} using {@link #env()} first, then this.
 * {@link #close()} frees the native Env (through {@link SluiceEnvHandle}) and then the shared native state; it is
 * idempotent. The composite Env shares RocksDB's default thread pools, so closing it stops no thread.
 *
 * <p>Thread-safety: every method may be called from any thread; stats reads and setters run concurrently with I/O.
 * They hold a read lock that {@link #close()} takes exclusively, so no call can touch freed native memory.
 */
public final class PriorityEnv implements StorageEnv, IoControl {
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final long state;
    private final SluiceEnvHandle env;
    private final Map<String, Integer> partitions = new ConcurrentHashMap<>();
    private final FaultInjector faults = new FaultInjector(this);
    private volatile IoPolicy policy = IoPolicy.passThrough();
    private volatile ContractDevice device = ContractDevice.DISABLED;
    private boolean closed;

    private PriorityEnv(long state, long envHandle) {
        this.state = state;
        this.env = new SluiceEnvHandle(envHandle, NativeBridge::deleteEnv);
    }

    /** Whether the native library can be used here; empty when it can, else the reason. */
    public static Optional<String> unavailableReason() {
        return NativeLoader.load();
    }

    /**
     * Loads the native library (once) and opens a new Env.
     *
     * @throws IllegalStateException naming the reason when the native Env cannot run on this machine
     */
    public static PriorityEnv open(PriorityEnvConfig config) {
        Optional<String> why = NativeLoader.load();
        if (why.isPresent()) {
            throw new IllegalStateException("the priority Env is not available: " + why.get());
        }
        long s = NativeBridge.create();
        long e;
        try {
            e = NativeBridge.newEnv(s);
        } catch (RuntimeException | Error ex) {
            NativeBridge.destroy(s);
            throw ex;
        }
        PriorityEnv pe = new PriorityEnv(s, e);
        try {
            pe.setChunkBytes(config.chunkBytes());
            config.classChunkBytes().forEach(pe::setChunkBytes);
            pe.setWriteBurst(config.writeBurst());
            pe.configureDevice(config.device());
            config.classLimits().forEach((c, l) -> pe.setClassLimit(c, l.opsPerSecond(), l.bytesPerSecond()));
            pe.setPolicy(config.policy());
        } catch (RuntimeException ex) {
            pe.close();
            throw ex;
        }
        return pe;
    }

    public static PriorityEnv open() {
        return open(PriorityEnvConfig.defaults());
    }

    @Override
    public Env env() {
        return env;
    }

    // ---------------------------------------------------------------------------------------------- partitions --

    /**
     * Attributes every file under {@code dir} to {@code partition} (longest registered prefix wins). Files opened before
     * registration count as unattributed. Registering a name again replaces its directory and keeps its counters.
     */
    @Override
    public void registerPartition(String partition, Path dir) {
        String[] prefixes = prefixes(dir).toArray(new String[0]);
        withState(s -> {
            partitions.put(partition, NativeBridge.registerPartition(s, partition, prefixes));
            return null;
        });
    }

    /**
     * Adds or updates entries of the partition's file-number → level map; every other file keeps its level. The base
     * level (rank 1) is recomputed from the whole map. Table files deleted through this Env leave the map by themselves.
     */
    @Override
    public void updateFileLevels(String partition, Map<Long, Integer> fileNumberToLevel) {
        pushLevels(partition, fileNumberToLevel, false);
    }

    /** Replaces the partition's whole file-number → level map (a full push: files not in it lose their level). */
    public void replaceFileLevels(String partition, Map<Long, Integer> fileNumberToLevel) {
        pushLevels(partition, fileNumberToLevel, true);
    }

    /** Test hook: the compaction rank the Env gives a file (0 = L0, 1 = base level, 2 = next; -1 = unknown). */
    int fileRank(String partition, long fileNumber) {
        int idx = index(partition);
        return withState(s -> NativeBridge.fileRank(s, idx, fileNumber));
    }

    private void pushLevels(String partition, Map<Long, Integer> fileNumberToLevel, boolean replace) {
        int idx = index(partition);
        long[] numbers = new long[fileNumberToLevel.size()];
        int[] levels = new int[numbers.length];
        int i = 0;
        for (Map.Entry<Long, Integer> e : fileNumberToLevel.entrySet()) {
            numbers[i] = e.getKey();
            levels[i] = e.getValue();
            i++;
        }
        withState(s -> {
            NativeBridge.updateFileLevels(s, idx, numbers, levels, replace);
            return null;
        });
    }

    /** Names of the registered partitions. */
    public Set<String> partitions() {
        return Set.copyOf(partitions.keySet());
    }

    // --------------------------------------------------------------------------------------------------- stats --

    @Override
    public IoStats ioStats() {
        return ioDetail().toIoStats();
    }

    @Override
    public Optional<IoStats> ioStats(String partition) {
        return ioDetail(partition).map(IoDetail::toIoStats);
    }

    /** Node-wide detailed counters (histograms, syncs, urgent and delayed ops, faults). */
    public IoDetail ioDetail() {
        return IoDetail.fromNative(readStats(-2));
    }

    /** Detailed counters of one registered partition. */
    public Optional<IoDetail> ioDetail(String partition) {
        Integer idx = partitions.get(partition);
        return idx == null ? Optional.empty() : Optional.of(IoDetail.fromNative(readStats(idx)));
    }

    /** I/O of files outside every registered partition directory. */
    public IoDetail unattributedIoDetail() {
        return IoDetail.fromNative(readStats(-1));
    }

    private long[] readStats(int idx) {
        long[] raw = new long[IoClass.values().length * NativeBridge.STAT_FIELDS];
        withState(s -> {
            NativeBridge.readStats(s, idx, raw);
            return null;
        });
        return raw;
    }

    /**
     * The share of the device budget used in the last full second: with the device model, the largest of IOPS units /
     * paid IOPS and bytes / bandwidth cap per direction; otherwise the node policy's budget (node rates or Calcspar's
     * paid IOPS); 0 when neither exists.
     */
    @Override
    public double budgetUse() {
        return withState(NativeBridge::budgetUse);
    }

    @Override
    public long deviceOverdraftOps() {
        return deviceStats().overdraftOps();
    }

    public DeviceStats deviceStats() {
        long[] raw = new long[NativeBridge.DEVICE_FIELDS];
        withState(s -> {
            NativeBridge.readDeviceStats(s, raw);
            return null;
        });
        return DeviceStats.fromNative(raw);
    }

    /** Node scheduler counters: I/O units and bytes granted since the policy was last set, I/Os waiting now. */
    public SchedulerStats schedulerStats() {
        long[] raw = new long[NativeBridge.SCHEDULER_FIELDS];
        withState(s -> {
            NativeBridge.readSchedulerStats(s, raw);
            return null;
        });
        int tiers = IoPolicy.MAX_TIERS;
        double[] windows = new double[tiers];
        long[] inFlight = new long[tiers];
        for (int t = 0; t < tiers; t++) {
            windows[t] = raw[3 + t] / 1e6;
            inFlight[t] = raw[3 + tiers + t];
        }
        return new SchedulerStats(
                raw[0], raw[1], (int) raw[2], windows, inFlight, raw[3 + 2 * tiers], raw[4 + 2 * tiers]);
    }

    /**
     * Scheduler state.
     *
     * @param windowStarts for {@link IoPolicy.TimeWindows}: where in the current second each tier's window opens
     * @param inFlight per tier: I/Os granted by a node policy and not finished yet (kept across policy switches)
     * @param grantedWriteBytes the part of {@code grantedBytes} that was written (appends and positioned writes), the
     *     bytes the write budget ({@link IoPolicy.NodeBudget#writeBytesPerSecond()}) counts
     * @param foregroundOverruns foreground I/Os (WAL, user reads, META, I/O RocksDB marked urgent) that reached the
     *     foreground wait bound ({@link #setForegroundWaitBound}) and proceeded without their grant
     */
    public record SchedulerStats(
            long grantedUnits,
            long grantedBytes,
            int waiting,
            double[] windowStarts,
            long[] inFlight,
            long grantedWriteBytes,
            long foregroundOverruns) {
        public SchedulerStats {
            windowStarts = windowStarts.clone();
            inFlight = inFlight.clone();
        }

        @Override
        public double[] windowStarts() {
            return windowStarts.clone();
        }

        @Override
        public long[] inFlight() {
            return inFlight.clone();
        }
    }

    // ---------------------------------------------------------------------------------------------- control ----

    @Override
    public Optional<IoControl> control() {
        return Optional.of(this);
    }

    @Override
    public void setClassLimit(IoClass ioClass, double opsPerSecond, double bytesPerSecond) {
        if (Double.isNaN(opsPerSecond) || Double.isNaN(bytesPerSecond)) {
            throw new IllegalArgumentException("class limit of " + ioClass + " must not be NaN");
        }
        withState(s -> {
            NativeBridge.setClassLimit(s, ioClass.ordinal(), opsPerSecond, bytesPerSecond);
            return null;
        });
    }

    /**
     * FlexEngine's partition level (§4.2): caps {@code partition}'s background I/O (flush, compaction, prefetch) at
     * {@code bytesPerSecond} — its Eq. 3 budget; ≤ 0 removes the cap. Applied before the node policy; compaction that
     * RocksDB raises to IO_USER during a write stall bypasses it (as it bypasses class caps).
     */
    @Override
    public void setPartitionBackgroundLimit(String partition, double bytesPerSecond) {
        if (Double.isNaN(bytesPerSecond)) {
            throw new IllegalArgumentException("background limit of partition '" + partition + "' must not be NaN");
        }
        int idx = index(partition);
        withState(s -> {
            NativeBridge.setPartitionBackgroundLimit(s, idx, bytesPerSecond);
            return null;
        });
    }

    @Override
    public void setPolicy(IoPolicy p) {
        int[] tiers = new int[IoClass.values().length];
        p.tiers().forEach((c, t) -> tiers[c.ordinal()] = t);
        double[] weights = {1, 1, 1, 1};
        int kind;
        boolean strictTop = true;
        long starvation = 0;
        double nodeOps = 0;
        double nodeBytes = 0;
        double nodeWriteBytes = 0;
        double paid = 0;
        double minWindow = 0.1;
        double pace = 0;
        if (p instanceof IoPolicy.StrictPriority sp) {
            kind = 1;
            starvation = sp.starvationBound().toNanos();
            nodeOps = sp.budget().opsPerSecond();
            nodeBytes = sp.budget().bytesPerSecond();
            nodeWriteBytes = sp.budget().writeBytesPerSecond();
        } else if (p instanceof IoPolicy.WeightedFair wf) {
            kind = 2;
            for (int i = 0; i < wf.weights().size(); i++) {
                weights[i] = wf.weights().get(i);
            }
            strictTop = wf.strictTopTier();
            nodeOps = wf.budget().opsPerSecond();
            nodeBytes = wf.budget().bytesPerSecond();
            nodeWriteBytes = wf.budget().writeBytesPerSecond();
        } else if (p instanceof IoPolicy.TimeWindows tw) {
            kind = 3;
            paid = tw.paidIops();
            minWindow = tw.minWindowFraction();
            starvation = tw.starvationBound().toNanos();
            pace = tw.pace().toNanos() / 1e9;
        } else {
            kind = 0;
        }
        final int k = kind;
        final boolean st = strictTop;
        final long sv = starvation;
        final double no = nodeOps;
        final double nb = nodeBytes;
        final double nw = nodeWriteBytes;
        final double pd = paid;
        final double mw = minWindow;
        final double pc = pace;
        withState(s -> {
            NativeBridge.setPolicy(s, k, tiers, weights, st, sv, no, nb, nw, pd, mw, pc);
            return null;
        });
        policy = p;
    }

    /**
     * Bounds how long a foreground I/O — WAL, USER_GET, USER_SCAN, META, or compaction/flush I/O RocksDB marked urgent
     * during a write stall — may wait in the scheduler (class cap plus node policy together). A WAL write waits while
     * holding RocksDB's write-group leadership, so an unbounded wait would stall every writer. When the bound is
     * reached the I/O proceeds (its cap reservation and node tokens stay charged) and {@link
     * SchedulerStats#foregroundOverruns()} counts it. Default 100 ms; {@link Duration#ZERO} = unbounded. Background
     * classes are never bounded.
     */
    public void setForegroundWaitBound(Duration bound) {
        if (bound == null || bound.isNegative()) {
            throw new IllegalArgumentException("foreground wait bound must be ≥ 0, got " + bound);
        }
        withState(s -> {
            NativeBridge.setForegroundMaxWait(s, bound.toNanos());
            return null;
        });
    }

    /** Test hook: how many classes have an active cap. */
    int activeClassCaps() {
        return withState(NativeBridge::capsOn);
    }

    @Override
    public IoPolicy policy() {
        return policy;
    }

    @Override
    public void setChunkBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("chunk bytes must be ≥ 0, got " + bytes);
        }
        withState(s -> {
            NativeBridge.setChunkBytes(s, bytes);
            return null;
        });
    }

    /**
     * Sets the chunk size of one background class's I/O, overriding {@link #setChunkBytes} for it; {@code bytes} &lt; 0
     * makes the class take the node's chunk size again, 0 stops cutting its I/O. A write chunk waiting in the device's
     * write queue is what a WAL write waits behind (DEVICE.md, "The write budget"), and every chunk pays the device's
     * per-I/O latency: a class whose rate is capped ({@code env.limit.<class>.mbps}) can take small chunks without
     * losing throughput, an uncapped compaction cannot.
     *
     * @throws IllegalArgumentException when {@code ioClass} is not background I/O (only FLUSH, the COMPACTION_ classes
     *     and PREFETCH are cut into chunks)
     */
    public void setChunkBytes(IoClass ioClass, long bytes) {
        PriorityEnvConfig.requireBackground(ioClass);
        withState(s -> {
            NativeBridge.setClassChunkBytes(s, ioClass.ordinal(), bytes < 0 ? -1 : bytes);
            return null;
        });
    }

    /**
     * Sets the write budget's burst (DEVICE.md, "The write budget"): how far, in time at the budget's rate, background
     * writes may run ahead of the device, i.e. the most a WAL write waits behind them on top of one chunk. Kept across
     * {@link #setPolicy}; no effect while the policy has no write budget.
     *
     * @throws IllegalArgumentException if {@code burst} is not positive
     */
    public void setWriteBurst(Duration burst) {
        if (burst.isNegative() || burst.isZero()) {
            throw new IllegalArgumentException("write burst must be > 0, got " + burst);
        }
        withState(s -> {
            NativeBridge.setWriteBurstNanos(s, burst.toNanos());
            return null;
        });
    }

    /** Replaces the emulated device (or disables it); its token state restarts. */
    public void configureDevice(ContractDevice d) {
        withState(s -> {
            NativeBridge.configureDevice(
                    s,
                    d.enabled(),
                    d.paidIops(),
                    d.readBytesPerSecond(),
                    d.writeBytesPerSecond(),
                    d.baseLatency().toNanos(),
                    d.overdraftPool(),
                    d.ioUnitBytes());
            return null;
        });
        device = d;
    }

    public ContractDevice device() {
        return device;
    }

    public FaultInjector faults() {
        return faults;
    }

    /**
     * Measures the native interposition cost: {@code mode} 0 = classify + account, 1 = the whole per-I/O pipeline
     * (classify, fault check, pass-through scheduler, device check, two clock reads, account) around an empty I/O.
     * Returns nanoseconds per call, averaged over {@code iterations} calls made in one native loop.
     */
    public double measureOverheadNanos(int mode, long iterations) {
        if (mode != 0 && mode != 1) {
            throw new IllegalArgumentException("mode must be 0 or 1");
        }
        long total = withState(s -> NativeBridge.measureInterposition(s, mode, iterations));
        return (double) total / iterations;
    }

    /**
     * Runs one synthetic I/O of {@code ioClass} through the whole pipeline — fault rules, class cap, node policy,
     * device model, accounting (as unattributed I/O) — without touching a file. For tests and benchmarks of the
     * scheduler and the device model in isolation. Returns the elapsed nanoseconds, or -1 when a fault rule failed it.
     */
    public long syntheticIo(IoClass ioClass, FaultRule.Op op, long bytes, boolean urgent) {
        return withState(s -> NativeBridge.syntheticIo(s, ioClass.ordinal(), op.ordinal(), bytes, urgent));
    }

    // -------------------------------------------------------------------------------------------- power cut ----

    /**
     * Emulates the machine losing power, for durability tests (see DEVICE.md, "Power-cut emulation"). The Env tracks,
     * for every file written through it, the length at the last successful {@code Sync}/{@code Fsync} ({@code
     * RangeSync} and {@code Close} do not make data durable). This call
     *
     * <ol>
     *   <li>switches the machine off: from now on every write, append, sync, flush, close, rename, link, delete, truncate
     *       and file or directory creation through this Env fails with an I/O error ({@code "sluice power cut: the
     *       emulated machine is off, EIO on ..."}); reads still work;
     *   <li>truncates every tracked file to its last synced length (files never synced to 0 bytes). Files still open
     *       are truncated again when RocksDB closes them.
     * </ol>
     *
     * <p>The machine stays off for the life of this Env: close the DB (its close errors are expected), close this Env,
     * and reopen the store with a new Env. What was synced survives; what was not may be gone. Files this Env did not
     * write (e.g. from before it opened) are never touched. Calling it again truncates again.
     */
    public PowerCut powerCut() {
        long[] out = new long[2];
        withState(s -> {
            NativeBridge.powerCut(s, out);
            return null;
        });
        return new PowerCut(out[0], out[1]);
    }

    /** Whether {@link #powerCut()} was called on this Env. */
    public boolean poweredOff() {
        return withState(NativeBridge::poweredOff);
    }

    /** Files the power-cut emulation tracks (written through this Env, not deleted since). */
    long trackedFiles() {
        return withState(NativeBridge::trackedFiles);
    }

    /**
     * What a {@link #powerCut()} did.
     *
     * @param filesTruncated tracked files that were longer than their last synced length
     * @param bytesDropped bytes cut off those files
     */
    public record PowerCut(long filesTruncated, long bytesDropped) {}

    // -------------------------------------------------------------------------------------------- lifecycle ----

    /** Frees the native Env and state. Every DB and Options using {@link #env()} must be closed before. Idempotent. */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            env.close(); // deletes the rocksdb::Env (its FileSystem drops its reference to the state)
            NativeBridge.destroy(state);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    <T> T withState(LongFunction<T> f) {
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("the priority Env is closed");
            }
            return f.apply(state);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    private int index(String partition) {
        Integer idx = partitions.get(partition);
        if (idx == null) {
            throw new IllegalArgumentException("partition '" + partition
                    + "' is not registered (call registerPartition first); known: " + partitions.keySet());
        }
        return idx;
    }

    /** The spellings under which RocksDB may name files of {@code dir}: as given, absolute, and with links resolved. */
    static List<String> prefixes(Path dir) {
        Set<String> out = new LinkedHashSet<>();
        out.add(dir.toString());
        Path abs = dir.toAbsolutePath().normalize();
        out.add(abs.toString());
        // resolve symbolic links of the longest existing ancestor (the directory itself may not exist yet)
        Path existing = abs;
        List<Path> rest = new ArrayList<>();
        while (existing != null && !Files.exists(existing)) {
            rest.add(0, existing.getFileName());
            existing = existing.getParent();
        }
        if (existing != null) {
            try {
                Path real = existing.toRealPath();
                for (Path r : rest) {
                    real = real.resolve(r);
                }
                out.add(real.toString());
            } catch (IOException ignored) {
                // keep the spellings we have
            }
        }
        out.removeIf(String::isEmpty);
        return List.copyOf(out);
    }
}
