package dev.sluice.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the server itself measures: connections, commands completed and refused, and the latency of every command from
 * the moment it was decoded to the moment its reply was ready (an HdrHistogram {@link Recorder}, read once a second by
 * the status sampler). Thread-safe.
 */
final class ServerStats {
    private static final long MAX_LATENCY_MICROS = 3_600_000_000L;

    private final MeterRegistry registry;
    private final Recorder latency = new Recorder(MAX_LATENCY_MICROS, 3);
    private final LongAdder commands = new LongAdder();
    private final LongAdder busy = new LongAdder();
    private final LongAdder quota = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder protocolErrors = new LongAdder();
    private final LongAdder connectionsRefused = new LongAdder();
    private final LongAdder authTimeouts = new LongAdder();
    private final LongAdder authFailures = new LongAdder();

    /**
     * A partition's own counts, for what INFO shows a tenant: until 2026-11-28 INFO gave every tenant the node-wide
     * counts (another tenant's commands, rates and refusals; a tenant-isolation probe).
     */
    static final class PartitionCounts {
        final LongAdder commands = new LongAdder();
        final LongAdder busy = new LongAdder();
        final LongAdder quota = new LongAdder();
    }

    private final ConcurrentHashMap<String, PartitionCounts> perPartition = new ConcurrentHashMap<>();
    private static final PartitionCounts NONE = new PartitionCounts();

    /** {@code partition}'s counts (an empty one, never counted into, for a partition nothing was counted for). */
    PartitionCounts partition(String partition) {
        PartitionCounts c = partition == null ? null : perPartition.get(partition);
        return c == null ? NONE : c;
    }

    private PartitionCounts countsOf(String partition) {
        return perPartition.computeIfAbsent(partition, p -> new PartitionCounts());
    }

    private final AtomicInteger connections = new AtomicInteger();
    private final ConcurrentHashMap<String, Counter> perCommand = new ConcurrentHashMap<>();
    private Histogram recycled;

    ServerStats(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("sluice.server.connections", connections, AtomicInteger::get)
                .description("open RESP2 connections")
                .register(registry);
        // Monotonic counts are counters (Prometheus *_total), so rate() works on them.
        FunctionCounter.builder("sluice.server.refused", busy, LongAdder::sum)
                .tag("reason", "busy")
                .description("requests refused: -BUSY (admission) or -QUOTA (the tenant's quota)")
                .register(registry);
        FunctionCounter.builder("sluice.server.refused", quota, LongAdder::sum)
                .tag("reason", "quota")
                .description("requests refused: -BUSY (admission) or -QUOTA (the tenant's quota)")
                .register(registry);
        FunctionCounter.builder("sluice.server.errors", errors, LongAdder::sum)
                .description(
                        "requests the engine failed or refused with -ERR (a failed read or write, an argument over a"
                                + " limit); unknown commands, wrong arity and syntax errors are answered without counting")
                .register(registry);
        FunctionCounter.builder("sluice.server.protocol.errors", protocolErrors, LongAdder::sum)
                .description("connections closed for a malformed, oversized or cross-protocol frame")
                .register(registry);
        FunctionCounter.builder("sluice.server.connections.refused", connectionsRefused, LongAdder::sum)
                .description("connections refused at accept: server.max.connections reached")
                .register(registry);
        FunctionCounter.builder("sluice.server.auth.timeouts", authTimeouts, LongAdder::sum)
                .description("connections closed for not authenticating within server.auth.timeout.ms")
                .register(registry);
        FunctionCounter.builder("sluice.server.auth.failures", authFailures, LongAdder::sum)
                .description("AUTH (or HELLO AUTH) refused: unknown tenant or wrong secret")
                .register(registry);
    }

    void connectionOpened() {
        connections.incrementAndGet();
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    int connections() {
        return connections.get();
    }

    /**
     * A command finished after {@code nanos}; {@code name} is its upper-case name (known commands only), {@code
     * partition} the connection's partition when it started (null: none).
     */
    void completed(String name, long nanos, String partition) {
        commands.increment();
        if (partition != null) {
            countsOf(partition).commands.increment();
        }
        latency.recordValue(Math.min(MAX_LATENCY_MICROS, Math.max(0, nanos / 1000)));
        if (name != null) {
            perCommand
                    .computeIfAbsent(
                            name,
                            n -> Counter.builder("sluice.server.commands")
                                    .tag("command", n.toLowerCase(java.util.Locale.ROOT))
                                    .description("RESP2 commands completed")
                                    .register(registry))
                    .increment();
        }
    }

    void busy(String partition) {
        busy.increment();
        if (partition != null) {
            countsOf(partition).busy.increment();
        }
    }

    void quota(String partition) {
        quota.increment();
        if (partition != null) {
            countsOf(partition).quota.increment();
        }
    }

    void error() {
        errors.increment();
    }

    void protocolError() {
        protocolErrors.increment();
    }

    void connectionRefused() {
        connectionsRefused.increment();
    }

    void authTimeout() {
        authTimeouts.increment();
    }

    void authFailure() {
        authFailures.increment();
    }

    long authFailureCount() {
        return authFailures.sum();
    }

    long authTimeoutCount() {
        return authTimeouts.sum();
    }

    long commands() {
        return commands.sum();
    }

    long busyCount() {
        return busy.sum();
    }

    long quotaCount() {
        return quota.sum();
    }

    long errorCount() {
        return errors.sum();
    }

    /** Latencies recorded since the previous call (in µs); called by one thread, the status sampler. */
    synchronized Histogram intervalLatency() {
        recycled = latency.getIntervalHistogram(recycled);
        return recycled;
    }
}
