package dev.sluice.core;

import com.google.common.base.Ticker;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.control.ControlEventLog;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.control.ControlPlane;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.IoControl;
import dev.sluice.core.spi.Profile;
import dev.sluice.core.spi.StorageEnv;
import dev.sluice.core.spi.StorageEnvProvider;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.ConcurrentTaskLimiterImpl;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.Status;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node: store layout, shared resources, partitions, control plane.
 *
 * <p><b>Layout.</b> {@code <data.dir>/SLUICE} (marker: format version), {@code <data.dir>/SLUICE.lock} (node lock) and
 * {@code <data.dir>/partitions/<name>/} (one RocksDB directory per partition), {@code <data.dir>/PARTITIONS} (the
 * partitions the store created: {@link PartitionRegistry}, so a partition whose directory vanished is refused rather
 * than created empty). Partitions found on disk but not configured are left untouched (logged).
 *
 * <p><b>Open.</b> Two phases. Checks, writing nothing: options ({@link #validate}), layout and marker, the node lock
 * (taken here when the store exists), then every configured partition ({@link StoreCheck}: state, LOCK, WALs, read-only
 * RocksDB open, SSTs). Only when all pass: the Env, the marker and directories of a new store, cleared leftovers of
 * interrupted partition creations, then each partition's DB. A refusal in the first phase leaves the store
 * byte-for-byte unchanged and creates nothing.
 *
 * <p><b>Close order.</b> partitions refuse new requests (admitted async ones still run) → control plane → queued
 * manual compactions dropped → async pool drained (≤ 60 s, the rest failed) → running manual compaction aborted
 * (RocksDB's shutdown flag; awaited ≤ 60 s) → partitions, under the node lock so no on-demand sample runs (each: gate,
 * scans, DB, options) → write-buffer manager → caches → Env → event log → meters.
 */
final class NodeImpl implements SluiceNode {
    private static final Logger log = LoggerFactory.getLogger(NodeImpl.class);
    static final String MARKER = "SLUICE";
    static final String FORMAT = "1";

    private final SluiceConfig config;
    private final MeterRegistry registry;
    private final Ticker ticker;
    private final StorageEnv env;
    private final Cache blockCache;
    private final WriteBufferManager writeBufferManager;
    private final Cache writeBufferManagerCache; // only when there is no block cache to charge memtables to
    private final ThreadPoolExecutor asyncPool;
    private final ThreadPoolExecutor manualCompactions;
    private final Map<String, RocksPartition> partitions = new LinkedHashMap<>();
    private final Map<String, PartitionSampler> samplers = new LinkedHashMap<>();
    private final ControlEventLog events;
    private final NodeMetrics metrics;
    private ControlPlane plane;
    private StoreCheck.StoreLock storeLock; // <data.dir>/SLUICE.lock, held until close
    private NodeSnapshot previousNode;
    private volatile boolean closed;
    /** Counted down when {@link #close()} has released everything, so that a concurrent second close can wait for it. */
    private final java.util.concurrent.CountDownLatch closeDone = new java.util.concurrent.CountDownLatch(1);
    /** The thread running {@link #close()}; a close from that thread (a callback during close) returns at once. */
    private volatile Thread closingThread;

    private NodeImpl(SluiceConfig config, MeterRegistry registry, Ticker ticker, StorageEnv env) {
        this.config = config;
        this.registry = registry;
        this.ticker = ticker;
        this.env = env;
        // Plain Java objects first, so a failure there leaves no native object behind.
        this.events = new ControlEventLog(
                config.controlEventsCapacity(),
                registry,
                config.controlEventsFile().orElse(null));
        this.metrics = new NodeMetrics(registry);
        if (env != null) {
            io.micrometer.core.instrument.FunctionCounter overdraft =
                    io.micrometer.core.instrument.FunctionCounter.builder("sluice.device.overdraft.ops", env, e -> {
                                try {
                                    long v = e.deviceOverdraftOps();
                                    return v < 0 ? Double.NaN : v;
                                } catch (RuntimeException closed) {
                                    return Double.NaN; // the Env is closed
                                }
                            })
                            .description("I/Os the emulated device served with punitive (overdraft) latency")
                            .register(registry);
            // leaves with the node: left behind it read NaN after close, and a node reopened on the same registry
            // could not register its own (metrics probe, 2026-11-28)
            metrics.adopt(List.of(overdraft));
        }
        this.blockCache = config.blockCacheBytes() > 0 ? new LRUCache(config.blockCacheBytes()) : null;
        this.writeBufferManagerCache =
                config.writeBufferManagerBytes() > 0 && blockCache == null ? new LRUCache(0) : null;
        this.writeBufferManager = config.writeBufferManagerBytes() > 0
                ? new WriteBufferManager(
                        config.writeBufferManagerBytes(), blockCache != null ? blockCache : writeBufferManagerCache)
                : null;
        this.asyncPool = new ThreadPoolExecutor(
                config.asyncThreads(),
                config.asyncThreads(),
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.asyncQueueCapacity()),
                asyncThreads(daemon("sluice-async")));
        this.manualCompactions = new ThreadPoolExecutor(
                1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64), daemon("sluice-manual-compaction"));
    }

    /**
     * Nodes still open when the JVM exits are closed by one shutdown hook. Without it, System.exit or SIGTERM while a
     * flush or compaction ran could hang the JVM forever: exit joins RocksDB's background threads, and such a thread
     * waited to enter the exiting JVM to deliver its event to the node's listener (API probe, 2026-11-28: 4 hangs in 4
     * runs; plain rocksdbjni with any Java event listener does the same). Closing first stops that work while the JVM
     * still runs, and writes the clean-close record.
     */
    private static final class OpenNodes {
        private static final Set<NodeImpl> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private static boolean hooked;

        static void add(NodeImpl node) {
            synchronized (OpenNodes.class) {
                if (!hooked) {
                    try {
                        Runtime.getRuntime().addShutdownHook(new Thread(OpenNodes::closeAll, "sluice-shutdown"));
                        hooked = true;
                    } catch (IllegalStateException shuttingDown) {
                        return; // the JVM is exiting already: the caller's own close is all there is
                    }
                }
            }
            OPEN.add(node);
        }

        static void remove(NodeImpl node) {
            OPEN.remove(node);
        }

        private static void closeAll() {
            for (NodeImpl n : List.copyOf(OPEN)) {
                try {
                    n.close();
                } catch (RuntimeException e) {
                    log.warn("closing the node at {} at JVM exit failed: {}", n.config.dataDir(), e.toString());
                }
            }
        }
    }

    /** The node whose async pool runs the current thread (a callback on it may close that node). */
    private static final ThreadLocal<NodeImpl> ASYNC_POOL_OF = new ThreadLocal<>();

    private ThreadFactory asyncThreads(ThreadFactory base) {
        return r -> base.newThread(() -> {
            ASYNC_POOL_OF.set(this);
            r.run();
        });
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * {@code p} absolute and normalized, with symbolic links resolved in the part of it that exists (so that a link to
     * the data directory is seen through); as far as the file system can tell.
     */
    static Path resolvedPath(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        Path rest = null;
        while (existing != null && !java.nio.file.Files.exists(existing)) {
            Path name = existing.getFileName();
            rest = rest == null ? name : name.resolve(rest);
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs;
        }
        try {
            Path real = existing.toRealPath();
            return rest == null ? real : real.resolve(rest);
        } catch (IOException e) {
            return abs;
        }
    }

    /**
     * Opens {@code control.events.file} for appending (creating it and its directories, as the event log will) before
     * the store is created, so that a path that cannot be written leaves nothing behind in a fresh data directory
     * (until 2026-11-27 the log was opened after the store's marker and directories were made).
     */
    private static void probeEventsFile(Path f) {
        try {
            dev.sluice.core.control.ControlEventLog.openForAppend(f).close();
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new ConfigException(
                    SluiceConfig.EVENTS_FILE + " = " + f + " cannot be opened for appending: " + e.getMessage());
        }
    }

    /**
     * Checks everything about {@code config} that can be checked without touching the disk or loading native code: the
     * profile, every controller and its options (each loop is created against a throwaway context and dropped), and
     * the Env options. Throws {@link ConfigException} naming the first bad key.
     */
    static void validate(SluiceConfig config) {
        if (config == null) {
            throw new ConfigException("config must not be null");
        }
        config.controlEventsFile().ifPresent(f -> {
            if (java.nio.file.Files.isDirectory(f)) {
                throw new ConfigException(SluiceConfig.EVENTS_FILE + " = " + f + " is a directory; give a file path");
            }
            Path store = resolvedPath(config.dataDir());
            if (resolvedPath(f).startsWith(store)) {
                // Until 2026-11-27 accepted: JSON lines appended to PARTITIONS, a CURRENT or a live WAL made the next
                // open refuse the store as damaged.
                throw new ConfigException(SluiceConfig.EVENTS_FILE + " = " + f + " is inside data.dir (" + store
                        + "), where Sluice's own files live; give a path outside the store directory");
            }
        });
        Profiles.get(config.profile());
        Map<String, String> gates = new java.util.HashMap<>(); // partition -> the controller that installed its gate
        Map<String, String> caches = new java.util.HashMap<>();
        for (ControlLoopProvider p : resolveControls(config)) {
            try {
                p.create(new ValidationContext(mergedOptions(p, config), config, p.name(), gates, caches));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("control." + p.name() + ": " + e.getMessage());
            }
        }
        if (config.env().equals("default")) {
            refuseWithoutPriorityEnv(config, "env = default");
        }
        StorageEnvProvider provider = envProvider();
        if (config.env().equals("default")) {
            if (!config.envOptions().isEmpty()) {
                throw envOptionsOnDefault(config);
            }
        } else if (provider != null) {
            Map<String, String> opts = mergedEnvOptions(provider, config);
            try {
                provider.validate(opts);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("env: " + e.getMessage());
            }
        }
    }

    /** Refuses a controller that acts only through the priority Env when the node will not run it ({@code why}). */
    private static void refuseWithoutPriorityEnv(SluiceConfig config, String why) {
        for (ControlLoopProvider p : resolveControls(config)) {
            if (p.needsPriorityEnv()) {
                throw new ConfigException(SluiceConfig.CONTROLS + " lists '" + p.name() + "', which acts through the"
                        + " priority Env, but " + why + ": use env = priority (or auto where the priority Env loads),"
                        + " or drop '" + p.name() + "'");
            }
        }
    }

    static SluiceNode open(SluiceConfig config, MeterRegistry registry, Ticker ticker) {
        validate(config);
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null (use new SimpleMeterRegistry())");
        }
        if (ticker == null) {
            throw new IllegalArgumentException("ticker must not be null");
        }
        RocksDB.loadLibrary();
        Profile profile = Profiles.get(config.profile());
        List<ControlLoopProvider> providers = resolveControls(config);
        // Phase 1 — checks only: nothing is created, opened for writing or rewritten until every partition passed.
        StoreCheck.StoreLock lock = null;
        Map<String, StoreCheck.State> states = new LinkedHashMap<>();
        Set<String> listed = Set.of(); // PartitionRegistry: the partitions this store created
        try {
            if (inspectLayout(config.dataDir())) {
                lock = StoreCheck.StoreLock.acquire(config.dataDir());
                listed = PartitionRegistry.read(config.dataDir()).orElse(Set.of());
            }
            for (String name : config.partitions()) {
                Path dir = config.dataDir().resolve("partitions").resolve(name);
                StoreCheck.State state = StoreCheck.classify(name, dir);
                StoreCorruptedException gone = PartitionRegistry.missing(config.dataDir(), name, dir, state, listed);
                if (gone != null) {
                    throw gone;
                }
                if (state == StoreCheck.State.EXISTING) {
                    StoreCheck.checkExisting(name, dir, profile);
                } else {
                    StoreCheck.checkWritable(name, dir);
                }
                states.put(name, state);
            }
            refuseSharedDirectories(config);
            if (lock != null) {
                refuseUnwritableRegistry(config, listed);
            }
        } catch (IOException e) {
            releaseAfterRefusal(lock);
            throw new SluiceException("cannot read data directory " + config.dataDir() + ": " + e, e);
        } catch (RuntimeException e) {
            releaseAfterRefusal(lock);
            throw e;
        }
        // Phase 2 — create and open.
        StorageEnv env;
        NodeImpl node;
        try {
            config.controlEventsFile().ifPresent(NodeImpl::probeEventsFile);
            env = openEnv(config);
            if (env == null || env.control().isEmpty()) {
                try {
                    refuseWithoutPriorityEnv(config, "env = " + config.env() + " runs RocksDB's default Env here");
                } catch (ConfigException e) {
                    if (env != null) {
                        env.close();
                    }
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            releaseAfterRefusal(lock);
            throw e;
        }
        try {
            if (lock == null) {
                // A new store: its directory, then the lock, then the marker. Until 2026-11-29 the marker came first,
                // unlocked: of two nodes creating the same store at once (a probe: 150 pairs of threads), the loser got
                // "cannot prepare data directory: NoSuchFileException SLUICE.tmp" (120 times) or a false "not a
                // Sluice store" (twice), and the documented "already open" 28 times.
                try {
                    Files.createDirectories(config.dataDir());
                } catch (IOException e) {
                    throw new SluiceException("cannot prepare data directory " + config.dataDir() + ": " + e, e);
                }
                lock = StoreCheck.StoreLock.acquire(config.dataDir());
                // Phase 1 ran without the lock (there was no directory to lock): another process may have created
                // and closed a store at this path in between. Its partitions are not "new" any more, and opening
                // them as new would skip the checks of phase 1; refuse instead (until 2026-11-27 not checked).
                for (String name : config.partitions()) {
                    Path dir = config.dataDir().resolve("partitions").resolve(name);
                    StoreCheck.State now;
                    try {
                        now = StoreCheck.classify(name, dir);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException("cannot read data directory " + config.dataDir(), e);
                    }
                    if (now != states.get(name)) {
                        throw new SluiceException("Sluice store " + config.dataDir() + " was created by another node"
                                + " while this one was opening it (partition '" + name + "' appeared); nothing was"
                                + " opened; open it again");
                    }
                }
            }
            prepareLayout(config.dataDir());
            node = new NodeImpl(config, registry, ticker, env);
            node.storeLock = lock;
        } catch (RuntimeException e) {
            if (env != null) {
                env.close();
            }
            if (lock != null) {
                lock.close();
            }
            if (e instanceof java.io.UncheckedIOException u) {
                throw new SluiceException(u.getMessage(), u);
            }
            throw e;
        }
        try {
            for (String name : config.partitions()) {
                node.openPartition(name, profile, states.get(name));
            }
            node.recordPartitions(listed);
            node.logUnconfiguredPartitions();
            node.startControl(providers);
            OpenNodes.add(node);
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Two configured partitions whose directories are one (a symbolic link made to spread tenants over disks, pointing
     * at the wrong one): each RocksDB instance deleted the other's files as obsolete, and the partition was lost at the
     * next open (damaged-store probe, 2026-11-28). RocksDB's own lock does not see it (same process, another path).
     */
    private static void refuseSharedDirectories(SluiceConfig config) throws IOException {
        Map<Path, String> seen = new LinkedHashMap<>();
        for (String name : config.partitions()) {
            Path dir = config.dataDir().resolve("partitions").resolve(name);
            if (!Files.exists(dir)) {
                continue; // created by this open, as a directory of its own
            }
            Path real = dir.toRealPath();
            String other = seen.putIfAbsent(real, name);
            if (other != null) {
                throw new SluiceException("partitions '" + other + "' and '" + name + "' are the same directory ("
                        + real + "; a symbolic link points one at the other's); two RocksDB instances in one directory"
                        + " delete each other's files. Point each partition at a directory of its own; Sluice opened"
                        + " nothing");
            }
        }
    }

    /**
     * The partition list ({@link PartitionRegistry}) is rewritten after the partitions are open when this open adds to
     * it; a data directory that cannot be written then refused the open only after the partitions had been opened for
     * writing and a new one created (damaged-store probe, 2026-11-28). Checked here, before anything changes.
     */
    private static void refuseUnwritableRegistry(SluiceConfig config, Set<String> listed) throws IOException {
        Path dataDir = config.dataDir();
        Optional<Set<String>> update = PartitionRegistry.update(dataDir, listed, config.partitions());
        if (update.isPresent() && !Files.isWritable(dataDir)) {
            throw new SluiceException("data directory " + dataDir + " is not writable by this process, and this open"
                    + " must update its partition list " + PartitionRegistry.FILE + " (partitions " + update.get()
                    + "; recorded: " + new java.util.TreeSet<>(listed) + "); Sluice opened nothing");
        }
    }

    private static void releaseAfterRefusal(StoreCheck.StoreLock lock) {
        if (lock != null) {
            lock.releaseAfterRefusal();
        }
    }

    // ---- configuration resolution ----

    private static List<ControlLoopProvider> resolveControls(SluiceConfig config) {
        Map<String, ControlLoopProvider> known = controlProviders();
        List<ControlLoopProvider> out = new ArrayList<>();
        for (String name : config.controls()) {
            ControlLoopProvider p = known.get(name);
            if (p == null) {
                throw new ConfigException(
                        SluiceConfig.CONTROLS + ": '" + name + "' is not a known controller; known: " + known.keySet()
                                + " (controllers come from engine-ratelimit, engine-compaction, engine-cache on the classpath)");
            }
            List<String> unknown =
                    p.optionSet().unknownKeys(config.controlOptions(name).keySet());
            if (!unknown.isEmpty()) {
                throw new ConfigException("control." + name + "." + unknown.get(0) + " is not an option of '" + name
                        + "'; its options: " + p.optionSet().names());
            }
            out.add(p);
        }
        return out;
    }

    /** Controllers on the classpath by name. */
    static Map<String, ControlLoopProvider> controlProviders() {
        Map<String, ControlLoopProvider> m = new TreeMap<>();
        for (ControlLoopProvider p : ServiceLoader.load(ControlLoopProvider.class, NodeImpl.class.getClassLoader())) {
            ControlLoopProvider prev = m.putIfAbsent(p.name(), p);
            if (prev != null && prev.getClass() != p.getClass()) {
                throw new ConfigException("two controllers are named '" + p.name() + "'");
            }
        }
        return m;
    }

    private static ConfigException envOptionsOnDefault(SluiceConfig config) {
        return new ConfigException("env options " + config.envOptions().keySet()
                + " were given, but env = default (RocksDB's Env takes none); use env = priority or auto");
    }

    private static StorageEnvProvider envProvider() {
        StorageEnvProvider provider = null;
        for (StorageEnvProvider p : ServiceLoader.load(StorageEnvProvider.class, NodeImpl.class.getClassLoader())) {
            if (p.name().equals("priority")) {
                provider = p;
            }
        }
        return provider;
    }

    /**
     * The Env's defaults merged with the user's {@code env.*} values, parsed with the Env's option descriptors: an
     * unknown key or a bad value is a ConfigException naming {@code env.<key>}.
     */
    private static Map<String, String> mergedEnvOptions(StorageEnvProvider provider, SluiceConfig config) {
        List<String> unknown =
                provider.options().unknownKeys(config.envOptions().keySet());
        if (!unknown.isEmpty()) {
            throw new ConfigException("env." + unknown.get(0) + " is not an option of the priority Env; its options: "
                    + provider.options().names());
        }
        return provider.options().parse("env.", config.envOptions()).asStrings();
    }

    private static StorageEnv openEnv(SluiceConfig config) {
        String mode = config.env();
        if (mode.equals("default")) {
            if (!config.envOptions().isEmpty()) {
                throw envOptionsOnDefault(config);
            }
            return null;
        }
        StorageEnvProvider provider = envProvider();
        Optional<String> why = provider == null
                ? Optional.of("engine-ratelimit (the priority Env) is not on the classpath")
                : provider.unavailableReason();
        if (why.isPresent()) {
            if (mode.equals("priority") || !config.envOptions().isEmpty()) {
                throw new ConfigException(SluiceConfig.ENV + " = " + mode
                        + (config.envOptions().isEmpty()
                                ? ""
                                : " with env options " + config.envOptions().keySet())
                        + " needs the priority Env, which cannot run here: " + why.get());
            }
            log.info("Sluice runs on RocksDB's default Env (priority Env unavailable: {})", why.get());
            return null;
        }
        Map<String, String> opts = mergedEnvOptions(provider, config);
        try {
            return provider.open(opts);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("env: " + e.getMessage());
        }
    }

    // ---- layout ----

    /**
     * Checks the data directory without writing: true when it is an existing Sluice store, false when it is absent,
     * empty or an interrupted creation (only {@code SLUICE.tmp}); throws when it is something else.
     */
    private static boolean inspectLayout(Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new StoreCorruptedException(SluiceConfig.DATA_DIR + " " + dir + " exists but is not a directory");
        }
        Path marker = dir.resolve(MARKER);
        // the marker is looked for again after the listing: a node creating the store at this moment writes it before
        // anything the listing would not accept, so a store that appeared meanwhile is not taken for a foreign
        // directory (StoreOpenSafetyTest's two-creators case failed so once in a full verify)
        if (Files.isDirectory(dir)
                && !isEmpty(dir)
                && !Files.exists(marker)
                && !onlyMarkerTemp(dir)
                && !Files.exists(marker)) {
            throw new StoreCorruptedException(dir + " is not empty and is not a Sluice store (no " + MARKER
                    + " file); Sluice will not write to it. Use an empty or new directory.");
        }
        if (!Files.exists(marker)) {
            return false;
        }
        if (!Files.isRegularFile(marker)) {
            throw new StoreCorruptedException("the store marker " + marker + " is not a regular file (a directory or a"
                    + " device), so this is not a readable Sluice store; the store was left untouched");
        }
        String text = readText(
                marker,
                "the store marker " + marker
                        + " is not text (binary or damaged content), so this is not a readable Sluice store; the store"
                        + " was left untouched");
        Properties p = new Properties();
        p.load(new java.io.StringReader(text));
        String format = p.getProperty("format");
        if (format == null) {
            // a truncated or emptied marker read as "says format=null" (damaged-store probe, 2026-11-28)
            throw new StoreCorruptedException("the store marker " + marker + " has no format line (it is damaged or"
                    + " truncated; a Sluice store's marker reads 'format=" + FORMAT
                    + "'); the store was left untouched."
                    + " If this directory is a Sluice store, write that line back into the marker");
        }
        if (!FORMAT.equals(format.strip())) {
            throw new StoreCorruptedException("the store marker " + marker + " says format=" + format
                    + ", but this Sluice reads format " + FORMAT + "; the store was left untouched");
        }
        Path partitions = dir.resolve("partitions");
        if (!Files.isDirectory(partitions)) {
            // The partitions directory is created before the marker (since 2026-11-26; before, right after it), so a
            // marker without it means the data is gone or not mounted. Opening would create an empty store over it
            // and answer every read "not found" (a hostile-client review: all 3,000 rows read as missing).
            throw new StoreCorruptedException(dir + " has the store marker " + MARKER + " but no " + partitions
                    + (Files.exists(partitions) ? " directory (something else has that name)" : "")
                    + ": the partitions' data is missing (deleted, or a volume not mounted). Sluice did not open or"
                    + " change it. If this store never held data (a creation interrupted by a crash before"
                    + " 2026-11-26), create the empty directory " + partitions + " to open it.");
        }
        return true;
    }

    /** Creates the marker and the partitions directory when the store does not exist yet (after inspectLayout). */
    private static void prepareLayout(Path dir) {
        try {
            if (inspectLayout(dir)) {
                return;
            }
            // The partitions directory first, then the marker (written, fsynced, renamed, directory fsynced): a crash
            // at any point leaves an empty directory, one holding only an empty partitions directory and maybe
            // SLUICE.tmp, or a valid store; so a marker always has its partitions directory beside it.
            Files.createDirectories(dir);
            Files.createDirectories(dir.resolve("partitions"));
            fsyncDirectory(dir);
            writeAtomically(
                    dir,
                    MARKER,
                    ("# Sluice store marker. Do not delete or edit.\nformat=" + FORMAT + "\n")
                            .getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new SluiceException("cannot prepare data directory " + dir + ": " + e, e);
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    /**
     * A directory holding only what an interrupted (or a concurrent) creation leaves: an empty partitions directory,
     * SLUICE.tmp, SLUICE.lock.
     */
    private static boolean onlyMarkerTemp(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.getFileName().toString();
                boolean leftover = n.equals(MARKER + ".tmp")
                        || n.equals(StoreCheck.StoreLock.NAME) // taken before the marker is written
                        || (n.equals("partitions") && Files.isDirectory(p) && isEmpty(p));
                if (!leftover) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A small store file (the marker, the partition list) as strict UTF-8 text; a file that is not valid UTF-8 is
     * refused with {@code notText} as the message rather than read with replacement characters.
     */
    static String readText(Path f, String notText) throws IOException {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(f)))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new StoreCorruptedException(notText);
        }
    }

    /**
     * Writes {@code dir/name} so that a crash leaves the old file or the new one: {@code name.tmp} written and fsynced,
     * renamed over {@code name}, then {@code dir} fsynced. Used for the store marker, {@code PARTITIONS} and {@link
     * CleanClose}'s record.
     */
    static void writeAtomically(Path dir, String name, byte[] content) throws IOException {
        // FileChannel is interruptible: a thread closing the node with its interrupt flag set (common in shutdown
        // paths) got ClosedByInterruptException, and the clean-close record was silently not written (lifecycle probe,
        // 2026-11-28). The flag is cleared for these few small writes and restored after.
        boolean interrupted = Thread.interrupted();
        try {
            writeAtomicallyUninterrupted(dir, name, content);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void writeAtomicallyUninterrupted(Path dir, String name, byte[] content) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                tmp,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory(dir);
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        try (java.nio.channels.FileChannel ch =
                java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Rewrites {@code <data.dir>/PARTITIONS} ({@link PartitionRegistry}) when the partitions opened now, or found on
     * disk with a {@code CURRENT}, are not all in it yet. Called after every configured partition was opened.
     */
    private void recordPartitions(Set<String> listed) {
        Path dataDir = config.dataDir();
        try {
            Optional<Set<String>> update = PartitionRegistry.update(dataDir, listed, partitions.keySet());
            if (update.isPresent()) {
                PartitionRegistry.write(dataDir, update.get());
            }
        } catch (IOException e) {
            throw new SluiceException(
                    "cannot write the partition list " + dataDir.resolve(PartitionRegistry.FILE) + ": " + e, e);
        }
    }

    private void logUnconfiguredPartitions() {
        try (Stream<Path> s = Files.list(config.dataDir().resolve("partitions"))) {
            s.filter(Files::isDirectory) // a README or other file there is not a partition
                    .map(p -> p.getFileName().toString())
                    .filter(n -> !partitions.containsKey(n))
                    .forEach(n -> log.info("partition '{}' exists on disk but is not configured; left untouched", n));
        } catch (IOException e) {
            log.debug("cannot list partitions directory", e);
        }
    }

    // ---- partitions ----

    /** Opens (or creates) a partition that {@link StoreCheck} already checked; {@code state} is what it found. */
    private void openPartition(String name, Profile profile, StoreCheck.State state) {
        Path dir = config.dataDir().resolve("partitions").resolve(name);
        boolean existing = state == StoreCheck.State.EXISTING;
        try {
            if (state == StoreCheck.State.INTERRUPTED_CREATION) {
                List<String> removed = StoreCheck.clearCreationLeftovers(dir);
                log.warn(
                        "partition '{}' at {}: its creation was interrupted before CURRENT was written (a crash);"
                                + " removed the leftovers {} and creating it again",
                        name,
                        dir,
                        removed);
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new SluiceException("partition '" + name + "': cannot create " + dir + ": " + e, e);
        }
        if (env != null) {
            env.registerPartition(name, dir);
        }
        Statistics stats = new Statistics();
        // Without the priority Env, file-read counts per activity come from the FILE_READ_* histograms, which RocksDB
        // only
        // records at EXCEPT_TIME_FOR_MUTEX or above (two clock reads per file read). With the Env they are not needed.
        stats.setStatsLevel(env == null ? StatsLevel.EXCEPT_TIME_FOR_MUTEX : StatsLevel.EXCEPT_DETAILED_TIMERS);
        PartitionListener listener = new PartitionListener(
                name, env == null ? (n, l) -> {} : (n, l) -> env.updateFileLevels(name, Map.of(n, l)));
        ConcurrentTaskLimiterImpl limiter = new ConcurrentTaskLimiterImpl("sluice-" + name, -1);
        Options options = StoreCheck.newOptions(); // track_and_verify_wals_in_manifest
        BlockBasedTableConfig table = new BlockBasedTableConfig();
        RocksDB db;
        try {
            profile.apply(options, table);
            if (blockCache != null) {
                table.setBlockCache(blockCache);
            } else {
                table.setNoBlockCache(true);
            }
            options.setTableFormatConfig(table);
            if (writeBufferManager != null) {
                options.setWriteBufferManager(writeBufferManager);
            }
            if (env != null) {
                options.setEnv(env.env());
            }
            options.setCreateIfMissing(!existing)
                    .setErrorIfExists(false)
                    .setParanoidChecks(true)
                    .setWalRecoveryMode(org.rocksdb.WALRecoveryMode.PointInTimeRecovery) // see WalCheck
                    .setEnableThreadTracking(true) // compaction progress for LsmSnapshot.l0MergeProgress
                    .setStatistics(stats)
                    .setListeners(List.of(listener))
                    .setCompactionThreadLimiter(limiter);
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            stats.close();
            listener.close();
            limiter.close();
            throw openFailure(name, dir, existing, e);
        } catch (RuntimeException e) {
            options.close();
            stats.close();
            listener.close();
            limiter.close();
            throw e;
        }
        try {
            CleanClose.clear(dir); // open for writing: the record no longer describes the partition
        } catch (IOException e) {
            log.warn(
                    "partition '{}': could not remove {} ({}); harmless: it names an older state",
                    name,
                    CleanClose.FILE,
                    e.toString());
        }
        RocksPartition p = new RocksPartition(
                name,
                dir,
                db,
                options,
                stats,
                listener,
                limiter,
                config,
                asyncPool,
                registry,
                () -> latestOrSample(name));
        p.installQuota(new dev.sluice.core.quota.TenantQuota(
                name, config.quota(name), ticker::read, dev.sluice.core.quota.TenantQuota.Waiter.SYSTEM));
        PartitionSampler sampler = new PartitionSampler(p, env);
        partitions.put(name, p);
        samplers.put(name, sampler);
        metrics.register(name, sampler);
        metrics.adopt(p.meters());
    }

    private LsmSnapshot latestOrSample(String partition) {
        checkOpen();
        LsmSnapshot l = samplers.get(partition).latest();
        return l != null ? l : sampleAll(false).partition(partition);
    }

    private static SluiceException openFailure(String name, Path dir, boolean existing, RocksDBException e) {
        Status st = e.getStatus();
        String msg = RocksPartition.describe(e);
        boolean missingFile = st != null
                && st.getCode() == Status.Code.IOError
                && (msg.contains("No such file") || msg.contains("MANIFEST"));
        if (st != null && st.getCode() == Status.Code.Corruption || existing && missingFile) {
            return new StoreCorruptedException(
                    "partition '" + name + "' at " + dir + " is corrupted (" + msg
                            + "); RocksDB found it while opening, after Sluice's read-only checks had passed. Restore it"
                            + " from a backup or inspect it with RocksDB's ldb tool.",
                    e);
        }
        if (msg.contains("/LOCK:") || msg.contains("While lock file")) {
            return new SluiceException(
                    "partition '" + name + "' at " + dir
                            + " is already open (its LOCK is held by another node or process): " + msg,
                    e);
        }
        return new SluiceException("partition '" + name + "' at " + dir + ": cannot open: " + msg, e);
    }

    // ---- control ----

    private void startControl(List<ControlLoopProvider> providers) {
        RocksActuators actuators =
                new RocksActuators(partitions, env, manualCompactions, events, Clock.systemUTC(), ticker::read);
        List<ControlLoop> loops = new ArrayList<>();
        for (ControlLoopProvider p : providers) {
            try {
                loops.add(p.create(new Context(mergedOptions(p, config))));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("control." + p.name() + ": " + e.getMessage());
            }
        }
        plane = new ControlPlane(
                ticker, Clock.systemUTC(), config.tickPeriod(), () -> sampleAll(true), actuators, loops, events);
        plane.start();
    }

    /** The controller's defaults merged with the user's values, parsed with its option descriptors. */
    private static Map<String, String> mergedOptions(ControlLoopProvider p, SluiceConfig config) {
        return p.optionSet()
                .parse("control." + p.name() + ".", config.controlOptions(p.name()))
                .asStrings();
    }

    /** A context for {@link #validate}: the loop is created to check its options, then dropped; hooks do nothing. */
    private record ValidationContext(
            Map<String, String> options,
            SluiceConfig config,
            String controller,
            Map<String, String> gates,
            Map<String, String> caches)
            implements ControlContext {
        /**
         * A partition has one admission gate and one read cache: two controllers that each install one (e.g. {@code
         * admission} and {@code static-admission}) are refused here, before anything is created. Until 2026-11-28 they
         * passed validation and the open failed with an IllegalStateException after creating the store (probe).
         */
        private void claim(Map<String, String> owners, String partition, String what) {
            String first = owners.putIfAbsent(partition, controller);
            if (first != null) {
                throw new ConfigException(SluiceConfig.CONTROLS + " = " + config.controls() + ": '" + first + "' and '"
                        + controller + "' both install " + what + " on partition '" + partition
                        + "', which has room for one; list only one of them");
            }
        }

        @Override
        public List<String> partitions() {
            return config.partitions();
        }

        @Override
        public Ticker ticker() {
            return Ticker.systemTicker();
        }

        @Override
        public long tickNanos() {
            return config.tickPeriod().toNanos();
        }

        @Override
        public void installAdmissionGate(String partition, AdmissionGate gate) {
            gate.close();
            claim(gates, partition, "an admission gate");
        }

        @Override
        public void installReadCache(String partition, dev.sluice.core.spi.ReadCache cache) {
            cache.close();
            claim(caches, partition, "a read cache");
        }

        @Override
        public Optional<IoControl> io() {
            return Optional.empty();
        }
    }

    private final class Context implements ControlContext {
        private final Map<String, String> options;

        Context(Map<String, String> options) {
            this.options = Map.copyOf(options);
        }

        @Override
        public Map<String, String> options() {
            return options;
        }

        @Override
        public List<String> partitions() {
            return List.copyOf(partitions.keySet());
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public long tickNanos() {
            return config.tickPeriod().toNanos();
        }

        @Override
        public void installAdmissionGate(String partition, AdmissionGate gate) {
            RocksPartition p = partitions.get(partition);
            if (p == null) {
                throw new IllegalArgumentException("no partition '" + partition + "'");
            }
            p.installGate(gate);
        }

        @Override
        public void installReadCache(String partition, dev.sluice.core.spi.ReadCache cache) {
            RocksPartition p = partitions.get(partition);
            if (p == null) {
                throw new IllegalArgumentException("no partition '" + partition + "'");
            }
            p.installReadCache(cache);
        }

        @Override
        public io.micrometer.core.instrument.MeterRegistry meterRegistry() {
            return registry;
        }

        @Override
        public Optional<IoControl> io() {
            return env == null ? Optional.empty() : env.control();
        }

        @Override
        public dev.sluice.core.quota.PartitionQuota quota(String partition) {
            RocksPartition p = partitions.get(partition);
            return p == null ? dev.sluice.core.quota.PartitionQuota.UNLIMITED : p.quota();
        }
    }

    /**
     * Samples every partition. Only the control tick ({@code record = true}) advances the baseline that deltas are
     * computed against; an on-demand sample reports deltas since the last tick without moving it, so it cannot shorten
     * the interval the controllers see.
     */
    private synchronized NodeSnapshot sampleAll(boolean record) {
        checkOpen();
        long now = ticker.read();
        Map<String, LsmSnapshot> snaps = new LinkedHashMap<>();
        IoStats sum = IoStats.EMPTY;
        for (Map.Entry<String, PartitionSampler> e : samplers.entrySet()) {
            LsmSnapshot s = e.getValue().sample(now, partitions.get(e.getKey()).maxBackgroundJobs, record);
            snaps.put(e.getKey(), s);
            sum = sum == IoStats.EMPTY ? s.io() : sum.plus(s.io());
        }
        IoStats io = env != null ? env.ioStats() : sum;
        NodeSnapshot n = new NodeSnapshot(
                now,
                snaps,
                io,
                previousNode == null ? IoStats.EMPTY : io.minus(previousNode.io()),
                env != null ? env.budgetUse() : 0);
        previousNode = n;
        return n;
    }

    // ---- SluiceNode ----

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Sluice node at " + config.dataDir() + " is closed");
        }
    }

    @Override
    public SluiceConfig config() {
        return config;
    }

    @Override
    public Partition partition(String name) {
        checkOpen();
        RocksPartition p = partitions.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no partition '" + name + "'; this node has " + partitions.keySet());
        }
        return p;
    }

    @Override
    public Partition defaultPartition() {
        return partition(config.partitions().get(0));
    }

    @Override
    public List<String> partitionNames() {
        checkOpen();
        return List.copyOf(partitions.keySet());
    }

    @Override
    public NodeSnapshot sample() {
        return sampleAll(false);
    }

    @Override
    public NodeSnapshot latestSnapshot() {
        checkOpen();
        NodeSnapshot l = plane == null ? null : plane.latest();
        return l != null ? l : sampleAll(false);
    }

    @Override
    public ControlPlane controlPlane() {
        checkOpen();
        return plane;
    }

    @Override
    public List<ControlEvent> recentEvents() {
        checkOpen();
        return events.recent();
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public boolean priorityEnv() {
        return env != null;
    }

    @Override
    public void close(java.time.Duration asyncWait) {
        asyncDrainNanos = Math.max(0, asyncWait.toNanos());
        close();
    }

    /** How long {@link #drainAsync} lets admitted async requests finish (60 s unless {@link #close(Duration)} says). */
    private volatile long asyncDrainNanos = TimeUnit.SECONDS.toNanos(60);

    @Override
    public void close() {
        boolean first;
        synchronized (this) {
            first = !closed;
            if (first) {
                closed = true;
                closingThread = Thread.currentThread();
            }
        }
        OpenNodes.remove(this);
        if (!first) {
            awaitClose(); // outside the monitor: the first close takes it to close the partitions
            return;
        }
        try {
            closeOnce();
        } finally {
            closeDone.countDown();
        }
    }

    /**
     * A second {@code close()} returns only once the first has finished (the store lock released, RocksDB closed), so
     * that a caller may reopen the store after its own {@code close()} returns, whichever thread closed first. From
     * the closing thread itself it returns at once; if the waiting thread is interrupted it returns with the interrupt
     * status set.
     */
    private void awaitClose() {
        if (Thread.currentThread() == closingThread) {
            return;
        }
        try {
            closeDone.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeOnce() {
        if (plane != null) {
            plane.ownerClosing();
        }
        for (RocksPartition p : partitions.values()) {
            p.markClosing(); // new requests fail at once from here on
        }
        if (plane != null) {
            plane.close(); // waits for a running tick
        }
        int dropped = manualCompactions.shutdownNow().size();
        if (dropped > 0) {
            log.info("{} queued manual compaction(s) dropped at close", dropped);
        }
        drainAsync();
        for (RocksPartition p : partitions.values()) {
            p.abortBackgroundWork(); // a running compactFiles ends within about one I/O
        }
        awaitQuietly(manualCompactions, "the running manual compaction");
        RuntimeException first = null;
        synchronized (this) { // no on-demand sample can be running past this point
            for (RocksPartition p : partitions.values()) {
                try {
                    p.close();
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
        }
        if (writeBufferManager != null) {
            writeBufferManager.close();
        }
        if (writeBufferManagerCache != null) {
            writeBufferManagerCache.close();
        }
        if (blockCache != null) {
            blockCache.close();
        }
        if (env != null) {
            env.close();
        }
        events.close();
        metrics.close();
        if (storeLock != null) {
            storeLock.close();
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Lets admitted async requests finish (up to 60 s); any still queued after that, or if the closing thread is
     * interrupted, fail with IllegalStateException — no future is left pending.
     */
    private void drainAsync() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + asyncDrainNanos;
        // requests waiting in a partition's own queue (async.partition.threads) reach the pool as slots free up:
        // let them get there before the pool stops taking work, within the same 60 s
        try {
            while (partitions.values().stream().anyMatch(p -> p.asyncWaiting() > 0) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        asyncPool.shutdown();
        try {
            long left = Math.max(0, deadline - System.nanoTime());
            if (ASYNC_POOL_OF.get() == this) {
                // closed from a callback on this node's own pool: the pool cannot terminate while this thread runs in
                // it, and waiting for it took the full 60 s (API probe, 2026-11-28); wait for the others instead
                while (!interrupted
                        && (asyncPool.getActiveCount() > 1
                                || !asyncPool.getQueue().isEmpty())
                        && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            } else if (!interrupted && !asyncPool.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                log.warn(
                        "async requests did not finish within {} ms; failing the rest",
                        TimeUnit.NANOSECONDS.toMillis(asyncDrainNanos));
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        IllegalStateException notRun =
                new IllegalStateException("Sluice node at " + config.dataDir() + " closed before the request ran");
        for (Runnable r : asyncPool.shutdownNow()) {
            if (r instanceof RocksPartition.AsyncTask<?> t) {
                t.fail(notRun);
            }
        }
        partitions.values().forEach(p -> p.failAsyncWaiting(notRun));
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits (≤ 60 s) for the running manual compaction, which {@link RocksPartition#abortBackgroundWork()} has told to
     * stop. Past the bound close goes on, but a partition's close still waits for a compaction running on it (which
     * holds the partition's lifecycle lock), so its DB is never closed under it.
     */
    private static void awaitQuietly(ExecutorService pool, String what) {
        try {
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                log.warn("{} did not stop within 60 s of being aborted; closing anyway", what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
