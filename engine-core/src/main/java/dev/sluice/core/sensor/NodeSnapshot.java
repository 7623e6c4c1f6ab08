package dev.sluice.core.sensor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One tick's view of a whole node: one {@link LsmSnapshot} per partition (in configuration order) plus node-level I/O
 * (the priority Env is shared by all partitions, so its counters are node-wide).
 *
 * @param deviceBudgetUse fraction of the node's I/O budget used during the interval (0 when no budget is configured)
 */
public record NodeSnapshot(
        long timeNanos, Map<String, LsmSnapshot> partitions, IoStats io, IoStats ioDelta, double deviceBudgetUse) {
    public NodeSnapshot {
        partitions = Collections.unmodifiableMap(new LinkedHashMap<>(partitions));
    }

    public LsmSnapshot partition(String name) {
        LsmSnapshot s = partitions.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no partition '" + name + "' in snapshot; have " + partitions.keySet());
        }
        return s;
    }

    /** Total user operations per second over the interval, all partitions. */
    public double opsPerSecond() {
        double sum = 0;
        for (LsmSnapshot s : partitions.values()) {
            sum += s.opsPerSecond();
        }
        return sum;
    }

    /** Highest memtable watermark of any partition. */
    public double maxMemtableWatermark() {
        double m = 0;
        for (LsmSnapshot s : partitions.values()) {
            m = Math.max(m, s.memtableWatermark());
        }
        return m;
    }
}
