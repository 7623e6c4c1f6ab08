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
}
