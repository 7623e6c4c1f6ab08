package dev.sluice.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Once a second (driven by the server's scheduler) turns the node's latest snapshot and the server's own counters into
 * one point of the per-second history that {@code /status} serves and the dashboard draws: commands/s and their p50/p99
 * latency as the server saw them, and per partition the memtable watermark, L0 files, pending compaction bytes,
 * admission rate and stall; node-wide I/O per class in bytes/s. Also renders {@code INFO}. {@link #sample} is called
 * by one thread; the readers ({@link #statusJson}, {@link #info}) may run on any thread.
 */
final class StatusSampler {
    private static final ObjectMapper JSON =
            new ObjectMapper().findAndRegisterModules().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private static final int EVENTS_SHOWN = 100;

    private final SluiceNode node;
    private final ServerConfig config;
    private final ServerStats stats;
    private final Clock clock;
    private final int capacity;
    private final ArrayDeque<Map<String, Object>> history = new ArrayDeque<>();
    private final long startMillis;
    private long lastCommands;
    private long lastMillis;
    private volatile double commandsPerSecond;
    private volatile Map<String, Object> ports = Map.of();
    /** Per tenant partition: its commands at the last sample, and its commands per second over the last interval. */
    private final Map<String, Long> lastPartitionCommands = new java.util.HashMap<>();

    private final Map<String, Double> partitionCommandsPerSecond = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile java.util.function.ToIntFunction<String> connectionsOf = p -> 0;
    private final java.util.Set<String> tenantPartitions;

    StatusSampler(SluiceNode node, ServerConfig config, ServerStats stats, Clock clock) {
        this.node = node;
        this.config = config;
        this.stats = stats;
        this.clock = clock;
        this.capacity = config.get(ServerConfig.HISTORY_SECONDS);
        this.tenantPartitions = config.tenantPartitions();
        this.startMillis = clock.millis();
        this.lastMillis = startMillis;
    }

    void ports(int resp, int http) {
        ports = Map.of("resp", resp, "http", http);
    }

    /** How INFO counts a tenant partition's connections (the server's open connections authenticated to it). */
    void connectionsOf(java.util.function.ToIntFunction<String> f) {
        connectionsOf = f;
    }

    /** Takes one point (called once a second). */
    void sample() {
        long now = clock.millis();
        long commands = stats.commands();
        double secs = Math.max(1e-3, (now - lastMillis) / 1000.0);
        double cps = (commands - lastCommands) / secs;
        lastCommands = commands;
        lastMillis = now;
        commandsPerSecond = cps;
        for (String partition : tenantPartitions) {
            long c = stats.partition(partition).commands.sum();
            Long before = lastPartitionCommands.put(partition, c);
            if (before != null) {
                partitionCommandsPerSecond.put(partition, (c - before) / secs);
            }
        }
        Histogram h = stats.intervalLatency();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("t", now);
        p.put("commandsPerSecond", round(cps));
        p.put("p50Ms", h.getTotalCount() == 0 ? null : round(h.getValueAtPercentile(50) / 1000.0));
        p.put("p99Ms", h.getTotalCount() == 0 ? null : round(h.getValueAtPercentile(99) / 1000.0));
        p.put("busy", stats.busyCount());
        p.put("quota", stats.quotaCount());
        NodeSnapshot snap = node.latestSnapshot();
        Map<String, Object> parts = new LinkedHashMap<>();
        double interval = 0;
        for (LsmSnapshot s : snap.partitions().values()) {
            parts.put(s.partition(), partitionPoint(s));
            interval = Math.max(interval, s.intervalNanos() / 1e9);
        }
        p.put("partitions", parts);
        Map<String, Object> io = new LinkedHashMap<>();
        for (IoClass c : IoClass.values()) {
            long b = snap.ioDelta().get(c).bytes();
            io.put(c.name(), interval > 0 && b >= 0 ? round(b / interval) : 0);
        }
        p.put("ioBytesPerSecond", io);
        synchronized (history) {
            history.addLast(p);
            while (history.size() > capacity) {
                history.removeFirst();
            }
        }
    }

    private static Map<String, Object> partitionPoint(LsmSnapshot s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("opsPerSecond", round(s.opsPerSecond()));
        m.put("memtableWatermark", round(s.memtableWatermark()));
        m.put("unmergedWatermark", round(s.unmergedWatermark()));
        m.put("l0Files", s.levels().isEmpty() ? 0 : s.levels().get(0).fileCount());
        m.put("pendingCompactionBytes", s.pendingCompactionBytes());
        m.put("admissionRate", Double.isInfinite(s.admissionRate()) ? null : round(s.admissionRate()));
        m.put("admissionQueued", s.admissionQueued());
        m.put("stall", s.stall().name());
        return m;
    }

    /** The {@code /status} document: node, server, latest snapshot per partition, history, recent control events. */
    String statusJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("uptimeSeconds", (clock.millis() - startMillis) / 1000);
        server.put("ports", ports);
        server.put("connections", stats.connections());
        server.put("commands", stats.commands());
        server.put("commandsPerSecond", round(commandsPerSecond));
        server.put("busy", stats.busyCount());
        server.put("quota", stats.quotaCount());
        server.put("errors", stats.errorCount());
        server.put("authRequired", config.authRequired());
        server.put(
                "tenants",
                config.tenants().values().stream()
                        .map(t -> Map.of("tenant", t.name(), "partition", t.partition()))
                        .toList());
        doc.put("server", server);
        Map<String, Object> nodeDoc = new LinkedHashMap<>();
        nodeDoc.put("dataDir", node.config().dataDir().toString());
        nodeDoc.put("profile", node.config().profile());
        nodeDoc.put("controls", node.config().controls());
        nodeDoc.put("priorityEnv", node.priorityEnv());
        doc.put("node", nodeDoc);
        NodeSnapshot snap = node.latestSnapshot();
        Map<String, Object> parts = new LinkedHashMap<>();
        for (LsmSnapshot s : snap.partitions().values()) {
            Map<String, Object> m = partitionPoint(s);
            m.put("immutableMemtables", s.immutableMemtables());
            m.put(
                    "levels",
                    s.levels().stream()
                            .map(l -> Map.of("level", l.level(), "files", l.fileCount(), "bytes", l.bytes()))
                            .toList());
            m.put("runningFlushes", s.runningFlushes());
            m.put("runningCompactions", s.runningCompactions());
            m.put("maxBackgroundJobs", s.maxBackgroundJobs());
            m.put("writeBufferSize", s.writeBufferSize());
            m.put("stallMicros", s.stallMicros());
            m.put(
                    "health",
                    s.health().backgroundError() == null
                            ? "ok"
                            : (s.health().writesStopped() ? "writes stopped: " : "error: ")
                                    + s.health().backgroundError());
            parts.put(s.partition(), m);
        }
        doc.put("partitions", parts);
        synchronized (history) {
            doc.put("history", new ArrayList<>(history));
        }
        List<ControlEvent> events = node.recentEvents();
        List<Map<String, Object>> ev = new ArrayList<>();
        for (ControlEvent e : events.subList(Math.max(0, events.size() - EVENTS_SHOWN), events.size())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("t", e.time().toEpochMilli());
            m.put("controller", e.controller());
            m.put("partition", e.partition());
            m.put("knob", e.knob());
            m.put("action", e.action());
            m.put("reason", e.reason());
            m.put("outcome", e.outcome().name());
            ev.add(m);
        }
        doc.put("events", ev);
        try {
            return JSON.writeValueAsString(doc);
        } catch (Exception e) {
            throw new IllegalStateException("cannot render /status: " + e, e);
        }
    }

    /**
     * {@code INFO [section ...]}: server, clients, stats, sluice (per-partition snapshot); "all"/"default"/"everything"
     * = every one; sections this server does not have are left out (Redis answers them with nothing too).
     */
    String info(java.util.Set<String> sections, Commands.Call c) {
        boolean all = sections.contains("default") || sections.contains("all") || sections.contains("everything");
        StringBuilder sb = new StringBuilder();
        if (all || sections.contains("server")) {
            sb.append("# Server\r\n")
                    .append("redis_version:7.0.0\r\n")
                    .append("sluice_server:1\r\n")
                    .append("redis_mode:standalone\r\n")
                    .append("process_id:")
                    .append(ProcessHandle.current().pid())
                    .append("\r\n")
                    .append("tcp_port:")
                    .append(ports.getOrDefault("resp", 0))
                    .append("\r\n")
                    .append("uptime_in_seconds:")
                    .append((clock.millis() - startMillis) / 1000)
                    .append("\r\n\r\n");
        }
        // With tenants, a tenant sees its own partition's counts, not the node's: until 2026-11-28 INFO showed every
        // tenant the others' commands, rates and refusals (a tenant-isolation probe)
        String own = config.authRequired() ? c.partition().name() : null;
        if (all || sections.contains("clients")) {
            sb.append("# Clients\r\nconnected_clients:")
                    .append(own == null ? stats.connections() : connectionsOf.applyAsInt(own))
                    .append("\r\n\r\n");
        }
        if (all || sections.contains("stats")) {
            ServerStats.PartitionCounts mine = own == null ? null : stats.partition(own);
            sb.append("# Stats\r\ntotal_commands_processed:")
                    .append(mine == null ? stats.commands() : mine.commands.sum())
                    .append("\r\ninstantaneous_ops_per_sec:")
                    .append(Math.round(
                            mine == null ? commandsPerSecond : partitionCommandsPerSecond.getOrDefault(own, 0.0)))
                    .append("\r\nrejected_busy:")
                    .append(mine == null ? stats.busyCount() : mine.busy.sum())
                    .append("\r\nrejected_quota:")
                    .append(mine == null ? stats.quotaCount() : mine.quota.sum())
                    .append("\r\n\r\n");
        }
        if (all || sections.contains("sluice")) {
            sb.append("# Sluice\r\n")
                    .append("profile:")
                    .append(node.config().profile())
                    .append("\r\ncontrols:")
                    .append(String.join(",", node.config().controls()))
                    .append("\r\npriority_env:")
                    .append(node.priorityEnv() ? 1 : 0)
                    .append("\r\nauth_required:")
                    .append(config.authRequired() ? 1 : 0)
                    .append("\r\nconnection_partition:")
                    .append(c.partition().name())
                    .append("\r\n");
            for (LsmSnapshot p : node.latestSnapshot().partitions().values()) {
                if (config.authRequired() && !p.partition().equals(c.partition().name())) {
                    continue; // a tenant sees only its own partition (the README's promise), not its neighbours'
                }
                sb.append("partition_")
                        .append(p.partition())
                        .append(":memtable_watermark=")
                        .append(fmt(p.memtableWatermark()))
                        .append(",l0_files=")
                        .append(p.levels().isEmpty() ? 0 : p.levels().get(0).fileCount())
                        .append(",pending_compaction_bytes=")
                        .append(p.pendingCompactionBytes())
                        .append(",stall=")
                        .append(p.stall().name().toLowerCase(Locale.ROOT))
                        .append(",admission_rate=")
                        .append(Double.isInfinite(p.admissionRate()) ? "unlimited" : fmt(p.admissionRate()))
                        .append(",ops_per_sec=")
                        .append(fmt(p.opsPerSecond()))
                        .append(",total_sst_bytes=")
                        .append(p.totalSstBytes())
                        .append("\r\n");
            }
            sb.append("\r\n");
        }
        return sb.toString();
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.3f", d);
    }

    private static double round(double d) {
        return Double.isFinite(d) ? Math.round(d * 1000) / 1000.0 : 0;
    }
}
