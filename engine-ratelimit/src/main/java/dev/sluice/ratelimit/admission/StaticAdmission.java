package dev.sluice.ratelimit.admission;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The static-admission baseline of CruiseDB §VIII-G: a fixed rate, either configured ({@code rate}) or the mean
 * unthrottled throughput measured during {@code warmup.seconds}, set once per partition and never changed. Pure.
 */
public final class StaticAdmission implements ControlLoop {
    private final double rate;
    private final long warmupNanos;
    private final AdmissionScope scope;
    private final double minRate;
    private final Map<String, long[]> measured = new HashMap<>(); // ops, nanos
    private final Map<String, Double> fixed = new HashMap<>();

    public StaticAdmission(double rate, long warmupNanos, AdmissionScope scope, double minRate) {
        this.rate = rate;
        this.warmupNanos = warmupNanos;
        this.scope = scope;
        this.minRate = minRate;
    }

    @Override
    public String name() {
        return "static-admission";
    }

    /** The fixed rate of a partition, or null before it is chosen. */
    public Double rate(String partition) {
        return fixed.get(partition);
    }

    /** {@inheritDoc} */
    @Override
    public void forget(String partition) {
        measured.remove(partition);
        fixed.remove(partition);
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot ls : snapshot.partitions().values()) {
            if (fixed.containsKey(ls.partition()) || ls.intervalNanos() <= 0) {
                continue;
            }
            double r;
            String reason;
            if (rate > 0) {
                r = rate;
                reason = "fixed rate from options";
            } else {
                long[] m = measured.computeIfAbsent(ls.partition(), k -> new long[2]);
                long ops = scope == AdmissionScope.ALL
                        ? ls.opsDelta().total()
                        : ls.opsDelta().writes();
                if (ops == 0 && m[0] == 0) {
                    continue; // no load yet: the measurement starts with the first request (as AdaptiveAdmission's)
                }
                m[0] += ops;
                m[1] += ls.intervalNanos();
                if (m[1] < warmupNanos) {
                    continue;
                }
                if (m[0] / (m[1] / 1e9) < minRate) {
                    // a trickle measured no load worth fixing for good (it fixed min.rate forever): measure again
                    m[0] = 0;
                    m[1] = 0;
                    continue;
                }
                r = m[0] / (m[1] / 1e9);
                reason = String.format("fixed at the mean unthrottled throughput of the first %.1f s", m[1] / 1e9);
            }
            fixed.put(ls.partition(), r);
            out.add(new Action.SetAdmissionRate(ls.partition(), r, reason));
        }
        return out;
    }
}
