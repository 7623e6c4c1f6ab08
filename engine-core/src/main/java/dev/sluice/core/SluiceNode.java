package dev.sluice.core;

import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.control.ControlPlane;
import dev.sluice.core.sensor.NodeSnapshot;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * An open Sluice store: a set of named partitions sharing one block cache, one Env (the priority Env by default on
 * linux-x86_64) and RocksDB's background thread pools, plus the control plane that tunes them.
 *
 * <p>{@link #close()} is idempotent. From its first instant new requests fail with {@link IllegalStateException}, while
 * async requests already admitted (queued for or running on the async pool) still run and succeed; it stops the control
 * plane, drops queued manual compactions, lets admitted async requests finish for up to 60 s and fails any still queued
 * after that (or when the closing thread is interrupted) with IllegalStateException — no future is left pending; then
 * aborts a running manual compaction (it ends within about one I/O; its input files stay, nothing is lost) and closes
 * every partition (open scans — using one afterwards throws IllegalStateException —, DB, options), the shared cache and
 * the Env — the order RocksDB requires. After close every method except {@link #config()}, {@link #meterRegistry()} and
 * {@link #priorityEnv()} throws {@link IllegalStateException}.
 */
public interface SluiceNode extends AutoCloseable {
    SluiceConfig config();

    /** The partition named {@code name}; {@link IllegalArgumentException} listing the known names when absent. */
    Partition partition(String name);

    /** The first configured partition (named "default" unless configured otherwise). */
    Partition defaultPartition();

    List<String> partitionNames();

    /** Samples every partition now (outside the control tick) and returns the node snapshot. */
    NodeSnapshot sample();

    /** The most recent snapshot taken by the control plane (or sampled now if none). */
    NodeSnapshot latestSnapshot();

    ControlPlane controlPlane();

    /** The most recent control events, oldest first (bounded by {@code control.events.capacity}). */
    List<ControlEvent> recentEvents();

    MeterRegistry meterRegistry();

    /** Whether the node runs on the priority Env (false: RocksDB's default Env). */
    boolean priorityEnv();

    /**
     * Lets admitted async requests finish, stops the control plane and closes every partition and the store lock.
     * Idempotent; a call that finds another thread closing waits until that close has finished, so the store can be
     * reopened as soon as any {@code close()} returns.
     */
    @Override
    void close();

    /**
     * As {@link #close()}, but admitted async requests get at most {@code asyncWait} (instead of 60 s) to finish; those
     * still queued then fail with {@link IllegalStateException}. Requests already running inside RocksDB finish first
     * (they cannot be stopped). For a server whose own shutdown bound has passed: a probe (2026-11-29) measured a
     * SIGTERM under a slow WAL take 95 s against a 30-s {@code server.shutdown.timeout.ms}.
     */
    default void close(java.time.Duration asyncWait) {
        close();
    }
}
