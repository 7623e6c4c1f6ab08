package dev.sluice.core.control;

import dev.sluice.core.sensor.NodeSnapshot;
import java.util.List;

/**
 * A pure controller (docs/architecture.md §2.2): given the node's latest snapshot and the current ticker time, return the actions
 * to take now (often none). It keeps its own state between calls, reads time only through {@code nowNanos}, starts no
 * thread and touches no engine — so it can be tested with scripted snapshots and a fake clock, and reused for Cassandra.
 *
 * <p>Thread-safety: called only from the control plane's tick thread; implementations need no synchronization.
 */
public interface ControlLoop {
    /** The name it is registered under (as in {@code controls = [...]}). */
    String name();

    List<Action> decide(NodeSnapshot snapshot, long nowNanos);

    /**
     * The partition left the node (on Cassandra: its table was dropped, or stopped using the strategy): drop what is
     * kept for it, so that a partition of the same name that joins later starts afresh (warm-up included) instead of
     * inheriting its predecessor's rates. Called on the tick thread, between ticks. A RocksDB node's partitions are fixed
     * while it runs, so it never calls this.
     */
    default void forget(String partition) {}
}
