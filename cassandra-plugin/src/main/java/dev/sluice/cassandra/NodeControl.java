package dev.sluice.cassandra;

import com.google.common.base.Ticker;
import dev.sluice.core.ConfigException;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.control.ControlEventLog;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.control.ControlPlane;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.core.spi.IoControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.CompactionInfo;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.db.virtual.VirtualKeyspace;
import org.apache.cassandra.db.virtual.VirtualKeyspaceRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one control plane of a Cassandra node: every table that uses {@link SluiceCompactionStrategy} is a partition of
 * it (named {@code keyspace.table}), whatever the number of strategy instances Cassandra creates per table. Started by
 * the first strategy instance; ticks on the daemon thread {@code sluice-control}; each tick samples {@link
 * CassandraSensors}, runs the controllers named in {@code -Dsluice.controls} (the same classes as on RocksDB), applies
 * their actions through {@link CassandraActuators}, and logs every applied action to Cassandra's log (logger {@code
 * dev.sluice.cassandra}) and the {@link ControlEventLog} (JMX: {@link SluiceControlMBean}).
 *
 * <p>Tables come and go: the controllers are created once with no partitions and follow the partitions of each
 * snapshot (admission and the compaction controllers keep per-partition state keyed by name).
 */
final class NodeControl {
    private static final Logger log = LoggerFactory.getLogger("dev.sluice.cassandra");
    static final String MBEAN_NAME = "dev.sluice.cassandra:type=SluiceControl";

    private static NodeControl instance;

    final NodeSettings settings;
    private final Map<String, TableState> tables = new ConcurrentHashMap<>();
    private final CassandraSensors sensors = new CassandraSensors();
    private final CassandraActuators actuators;
    private final ControlPlane plane;
    /** The controllers the plane runs (told when a table leaves: {@link ControlLoop#forget}). */
    private final List<ControlLoop> loops;

    private final ControlEventLog events;
    private final ScheduledExecutorService thread;
    private final Ticker ticker = Ticker.systemTicker();
    /** The node's I/O at the last tick (control thread only). */
    private IoStats previousIo;

    /** The node's control plane, started on first use. */
    static synchronized NodeControl get() {
        if (instance == null) {
            instance = new NodeControl(NodeSettings.from(System.getProperties()));
        }
        return instance;
    }

    /** Use {@link #get()}; visible for tests of a bad setting (it fails before starting anything). */
    NodeControl(NodeSettings settings) {
        this.settings = settings;
        this.actuators = new CassandraActuators(tables::get, () -> Set.copyOf(tables.keySet()));
        try {
            this.events =
                    new ControlEventLog(settings.eventCapacity(), new SimpleMeterRegistry(), settings.eventsFile());
        } catch (java.io.UncheckedIOException e) {
            // the engine's message names its own option (control.events.file); on a node the setting is this one
            throw new ConfigException(NodeSettings.PREFIX + NodeSettings.EVENTS_FILE.name() + " = "
                    + settings.eventsFile() + ": cannot open it for appending (" + e.getCause() + ")");
        }
        List<ControlLoop> loops = new ArrayList<>();
        this.loops = loops;
        for (String name : settings.controls()) {
            ControlLoopProvider p = settings.providers().get(name);
            try {
                loops.add(p.create(new Context(settings.controlOptions().get(name))));
            } catch (IllegalArgumentException e) {
                // the events file is open by now: each refused CREATE/ALTER leaked its handle until a GC (a probe,
                // 2026-11-29: 40 refused ALTERs, 40 open handles)
                events.close();
                throw new ConfigException(NodeSettings.PREFIX + "control." + name + ": " + e.getMessage());
            }
        }
        this.plane =
                new ControlPlane(ticker, Clock.systemUTC(), settings.tick(), this::sample, actuators, loops, events);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-control");
            t.setDaemon(true);
            return t;
        });
        long p = settings.tick().toNanos();
        thread.scheduleAtFixedRate(this::tick, p, p, TimeUnit.NANOSECONDS);
        // the same thread reads the memtable pool between ticks: the snapshot carries its mean over the tick
        thread.scheduleAtFixedRate(
                this::readPool,
                CassandraSensors.POOL_SAMPLE_MS,
                CassandraSensors.POOL_SAMPLE_MS,
                TimeUnit.MILLISECONDS);
        try {
            ManagementFactory.getPlatformMBeanServer()
                    .registerMBean(new StandardMBean(new View(), SluiceControlMBean.class), new ObjectName(MBEAN_NAME));
        } catch (Exception e) {
            log.warn("sluice: cannot register the JMX view {}: {}", MBEAN_NAME, e.toString());
        }
        if (org.apache.cassandra.schema.Schema.instance.getKeyspaceMetadata(ControlEventsTable.KEYSPACE) != null) {
            // a user keyspace of that name wins; the virtual one would be shadowed without a word (Cassandra probe,
            // 2026-11-28: SELECT * FROM sluice.control_events said the table does not exist)
            log.warn(
                    "sluice: a keyspace named '{}' exists, so the control events are not published as the virtual table"
                            + " {}.control_events; they are in the JMX view {} (RecentEvents) and in"
                            + " -Dsluice.events.file when set",
                    ControlEventsTable.KEYSPACE,
                    ControlEventsTable.KEYSPACE,
                    MBEAN_NAME);
        } else {
            try {
                VirtualKeyspaceRegistry.instance.register(
                        new VirtualKeyspace(ControlEventsTable.KEYSPACE, List.of(new ControlEventsTable(events))));
            } catch (RuntimeException e) {
                log.warn("sluice: cannot register the virtual table sluice.control_events: {}", e.toString());
            }
        }
        log.info(
                "sluice: control plane started: controls={} tick={} ms options={}",
                settings.controls(),
                settings.tick().toMillis(),
                settings.controlOptions());
    }

    /**
     * How long a table whose strategy instances all shut down stays in the plane before it leaves. An ALTER that keeps
     * the Sluice strategy (a sub-option, another delegate) shuts the old instances down before it starts the new ones;
     * within this grace they find the table's state (admission rate, held compactions) as it was. Until 2026-11-29 the
     * table left and joined again at once, the node's rate limit was dropped and admission started its warm-up over
     * (a Cassandra probe).
     */
    static final long LEAVE_GRACE_MS = 2_000;

    void register(SluiceCompactionStrategy s, ColumnFamilyStore cfs) {
        String name = TableState.nameOf(cfs);
        TableState t;
        synchronized (tables) {
            TableState old = tables.get(name);
            if (old != null && old.cfs != cfs && old.strategies.isEmpty()) {
                leave(name, old); // dropped and created again within the grace: a new table
            }
            t = tables.computeIfAbsent(name, n -> {
                log.info("sluice: table {} joins the control plane", n);
                return new TableState(cfs);
            });
            t.strategies.add(s);
        }
    }

    void unregister(SluiceCompactionStrategy s, ColumnFamilyStore cfs) {
        String name = TableState.nameOf(cfs);
        synchronized (tables) {
            TableState t = tables.get(name);
            if (t == null || !t.strategies.remove(s) || !t.strategies.isEmpty()) {
                return;
            }
            if (!cfs.isValid()) {
                leave(name, t); // dropped: at once
                return;
            }
        }
        try {
            thread.schedule(
                    () -> {
                        synchronized (tables) {
                            TableState t = tables.get(name);
                            if (t != null && t.strategies.isEmpty()) {
                                leave(name, t);
                            }
                        }
                    },
                    LEAVE_GRACE_MS,
                    TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the node is shutting down
        }
    }

    /** Under the tables' lock: the table leaves the plane. */
    private void leave(String name, TableState t) {
        if (!tables.remove(name, t)) {
            return;
        }
        log.info("sluice: table {} leaves the control plane", name);
        // on the control thread, between ticks: its rate leaves the node's limit, and a table created again under the
        // same name, or coming back to the strategy later, starts in warm-up instead of with the old rate (Cassandra
        // probe, 2026-11-28), and its sensors start over: their last reading would make the first interval span the
        // whole absence (a probe, 2026-11-29: t_0 measured over 57 s, a 526/s node limit after 5,825/s)
        try {
            thread.execute(() -> {
                actuators.tableLeft(name);
                loops.forEach(l -> l.forget(name));
                sensors.forget(name);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the node is shutting down
        }
    }

    /**
     * Whether Cassandra may start a background compaction of this table now; counts a withheld task when not. Called
     * by compaction threads.
     */
    boolean mayStartBackgroundTask(ColumnFamilyStore cfs) {
        TableState t = tables.get(TableState.nameOf(cfs));
        if (t == null) {
            return true;
        }
        if (t.held) {
            t.withheld.incrementAndGet();
            return false;
        }
        int limit = t.maxConcurrent;
        if (limit >= 0 && running(cfs) >= limit) {
            t.withheld.incrementAndGet();
            return false;
        }
        return true;
    }

    private static int running(ColumnFamilyStore cfs) {
        int n = 0;
        for (CompactionInfo.Holder h : CompactionManager.instance.active.getCompactions()) {
            CompactionInfo ci = h.getCompactionInfo();
            if (ci.getTableMetadata() != null && ci.getTableMetadata().id.equals(cfs.metadata.id)) {
                n++;
            }
        }
        return n;
    }

    private void readPool() {
        try {
            sensors.readPool();
        } catch (Throwable t) {
            log.debug("sluice: memtable pool reading failed", t);
        }
    }

    private NodeSnapshot sample() {
        long now = ticker.read();
        CassandraSensors.Pool pool = sensors.takePool();
        Map<String, LsmSnapshot> snaps = new LinkedHashMap<>();
        for (String name : new TreeSet<>(tables.keySet())) {
            TableState t = tables.get(name);
            if (t != null) {
                snaps.put(name, sensors.sample(t, now, actuators.admissionRate(name), pool));
            }
        }
        IoStats io = sensors.nodeIo();
        IoStats delta = previousIo == null ? IoStats.EMPTY : io.minus(previousIo);
        previousIo = io;
        return new NodeSnapshot(now, snaps, io, delta, 0);
    }

    private void tick() {
        try {
            for (ControlEvent e : plane.tickOnce()) {
                if (e.outcome() == ControlEvent.Outcome.APPLIED) {
                    log.info("sluice: {} {} on {} ({})", e.controller(), e.action(), e.partition(), e.reason());
                } else if (e.outcome() == ControlEvent.Outcome.SUPERSEDED) {
                    log.debug(
                            "sluice: {} {} on {} superseded: {}",
                            e.controller(),
                            e.action(),
                            e.partition(),
                            e.detail());
                }
            }
        } catch (Throwable t) {
            log.error("sluice: control tick failed; will retry next period", t);
        }
    }

    /** Controllers see the tables that exist when they are created (none, at start) and follow the snapshots. */
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
            return List.copyOf(new TreeSet<>(tables.keySet()));
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public long tickNanos() {
            return settings.tick().toNanos();
        }

        /** Cassandra admits requests at the native transport (SetAdmissionRate), not through a per-table gate. */
        @Override
        public void installAdmissionGate(String partition, AdmissionGate gate) {
            gate.close();
        }

        @Override
        public Optional<IoControl> io() {
            return actuators.io();
        }
    }

    private final class View implements SluiceControlMBean {
        @Override
        public String[] getControllers() {
            return plane.loopNames().toArray(String[]::new);
        }

        @Override
        public String[] getTables() {
            return new TreeSet<>(tables.keySet()).toArray(String[]::new);
        }

        @Override
        public String[] getHeldTables() {
            return tables.values().stream()
                    .filter(t -> t.held)
                    .map(t -> t.name)
                    .sorted()
                    .toArray(String[]::new);
        }

        @Override
        public long getWithheldTasks() {
            return tables.values().stream().mapToLong(t -> t.withheld.get()).sum();
        }

        @Override
        public double getAdmissionRate() {
            double r = actuators.nodeAdmissionRate();
            return Double.isInfinite(r) ? -1 : r;
        }

        @Override
        public long getTicks() {
            return plane.ticks();
        }

        @Override
        public long getEventCount() {
            return events.total();
        }

        @Override
        public String[] getRecentEvents() {
            return events.recent().stream()
                    .map(e ->
                            e.time() + " " + e.controller() + " " + e.partition() + " " + e.action() + " " + e.outcome()
                                    + " reason=" + e.reason() + (e.detail().isEmpty() ? "" : " detail=" + e.detail()))
                    .toArray(String[]::new);
        }

        @Override
        public long[] tableGauges(String keyspace, String table) {
            org.apache.cassandra.schema.KeyspaceMetadata ks =
                    org.apache.cassandra.schema.Schema.instance.getKeyspaceMetadata(keyspace);
            if (ks == null) {
                // getIfExists fails with a bare NullPointerException on an unknown keyspace
                throw new IllegalArgumentException("no keyspace " + keyspace);
            }
            if (ks.isVirtual()) {
                // getIfExists threw IllegalStateException "Cannot initialize Keyspace with virtual metadata"
                throw new IllegalArgumentException(
                        keyspace + " is a virtual keyspace: its tables have no sstables or memtables");
            }
            ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(keyspace, table);
            if (cfs == null) {
                throw new IllegalArgumentException("no table " + keyspace + "." + table);
            }
            TableState known = tables.get(TableState.nameOf(cfs));
            LsmSnapshot s = new CassandraSensors()
                    .sample(
                            known != null ? known : new TableState(cfs),
                            ticker.read(),
                            Double.POSITIVE_INFINITY,
                            CassandraSensors.poolNow());
            return new long[] {
                s.levels().stream().mapToLong(l -> l.fileCount()).sum(),
                s.pendingCompactionBytes(),
                s.runningCompactions(),
                s.memtableBytes(),
                s.memtableBudgetBytes(),
                s.runningFlushes()
            };
        }

        @Override
        public String[] getLatestSnapshot() {
            NodeSnapshot s = plane.latest();
            if (s == null) {
                return new String[0];
            }
            double seconds = s.partitions().values().stream()
                            .mapToLong(LsmSnapshot::intervalNanos)
                            .max()
                            .orElse(0)
                    / 1e9;
            String io = seconds <= 0 || s.ioDelta().source() == IoStats.Source.NONE
                    ? "io=unknown"
                    : String.format(
                            "io: flush=%.0fB/s compaction=%.0fB/s (since start: flush=%dB compaction=%dB)",
                            s.ioDelta().bytes(IoClass.FLUSH) / seconds,
                            s.ioDelta().bytes(IoClass.COMPACTION_HIGH) / seconds,
                            s.io().bytes(IoClass.FLUSH),
                            s.io().bytes(IoClass.COMPACTION_HIGH));
            List<String> lines = new ArrayList<>();
            lines.add(io);
            s.partitions().values().stream()
                    .map(p -> String.format(
                            "%s memtable=%.0f%% stall=%s sstables=%d pending=%dB compactions=%d flushes=%d ops/s=%.0f"
                                    + " bytes/write=%.0f held=%s",
                            p.partition(),
                            100 * p.memtableWatermark(),
                            p.stall(),
                            p.levels().stream().mapToInt(l -> l.fileCount()).sum(),
                            p.pendingCompactionBytes(),
                            p.runningCompactions(),
                            p.runningFlushes(),
                            p.opsPerSecond(),
                            p.ops().writes() > 0
                                    ? (double) p.ops().bytesWritten() / p.ops().writes()
                                    : 0,
                            p.autoCompactionsDisabled()))
                    .forEach(lines::add);
            return lines.toArray(String[]::new);
        }
    }
}
