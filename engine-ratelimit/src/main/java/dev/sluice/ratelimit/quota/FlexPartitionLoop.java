package dev.sluice.ratelimit.quota;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.spi.IoPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Controller {@code flex-partition}: FlexEngine's partition-level I/O admission (§4.2) on the priority Env. Each tick
 * it computes every partition's Eq. 2 foreground reservation (from its RCU/WCU quota) and Eq. 3 background budget (from
 * its ingest over the last minute) with {@link FlexBudgets}, and sets the partition's background cap in the Env when it
 * moved by more than 5 %. Use it with {@code env.policy = flexengine} (the node level). Pure apart from the actions it
 * returns; called on the control plane's thread only.
 */
public final class FlexPartitionLoop implements ControlLoop {
    public static final String NAME = "flex-partition";
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FlexPartitionLoop.class);

    static final Option<Double> WINDOW_S = Option.doubleOption(
            "window.s", 60, 1, 3600, "s", "how often Data_avg_psec (Eq. 3) is re-estimated, over the past window");
    static final Option<Double> LEVEL_MULTIPLIER =
            Option.doubleOption("level.multiplier", 10, 1, 100, "", "level size multiplier f in the LSM-BA bound");
    /**
     * At least 1 MiB/s: with 0 a partition whose Eq. 3 budget came to 0 (no ingest yet, or quotas reserving the whole
     * node) got a cap of 1 B/s, its first flush never finished and every write stopped in RocksDB (probe, 2026-11-28).
     */
    static final Option<Double> FLOOR_MBPS = Option.doubleOption(
            "floor.mbps",
            1,
            1,
            1e6,
            Option.MIB_PER_SECOND,
            "lowest background cap of a partition (at least 1: a lower cap stalls its flushes, and then its writes)");

    static final Option<Double> NODE_MBPS = Option.doubleOption(
            "node.mbps",
            0,
            0,
            1e7,
            Option.MIB_PER_SECOND,
            "node bandwidth shared by the reservations and budgets (0 = the Env policy's node token rate)");
    static final OptionSet OPTIONS = OptionSet.of(WINDOW_S, LEVEL_MULTIPLIER, FLOOR_MBPS, NODE_MBPS);

    private final FlexBudgets budgets;
    private final Function<String, PartitionQuota> quotas;
    private final double nodeBytesPerSec;
    private final Map<String, Double> applied = new HashMap<>();
    private volatile List<FlexBudgets.Budget> last = List.of();
    /** Whether the reservations added up to more than the node at the last tick (recorded and logged on a change). */
    private boolean overcommitted;

    FlexPartitionLoop(FlexBudgets budgets, Function<String, PartitionQuota> quotas, double nodeBytesPerSec) {
        this.budgets = budgets;
        this.quotas = quotas;
        this.nodeBytesPerSec = nodeBytesPerSec;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The budgets of the last tick (for tests and diagnostics). */
    public List<FlexBudgets.Budget> lastBudgets() {
        return last;
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<FlexBudgets.Input> inputs = new ArrayList<>();
        for (Map.Entry<String, LsmSnapshot> e : snapshot.partitions().entrySet()) {
            PartitionQuota q = quotas.apply(e.getKey());
            inputs.add(new FlexBudgets.Input(
                    e.getKey(), q.rcu(), q.wcu(), e.getValue().ops().bytesWritten(), deepestLevel(e.getValue())));
        }
        List<FlexBudgets.Budget> out = budgets.update(nowNanos, inputs, nodeBytesPerSec);
        last = out;
        List<Action> actions = new ArrayList<>();
        reservationsOverNode(out).ifPresent(actions::add);
        for (FlexBudgets.Budget b : out) {
            double cap = b.backgroundCapBytesPerSec();
            Double prev = applied.get(b.partition());
            if (prev != null && Math.abs(cap - prev) <= 0.05 * Math.max(prev, 1)) {
                continue;
            }
            applied.put(b.partition(), cap);
            String p = b.partition();
            double set = cap > 0 ? cap : 1; // 0 would remove the cap: a partition that wrote nothing gets 1 B/s + burst
            actions.add(new Action.ConfigureIo(
                    "io_partition_background:" + p,
                    String.format("background_cap[%s]=%.2fMiB/s", p, set / Option.MIB),
                    io -> io.setPartitionBackgroundLimit(p, set),
                    String.format(
                            "Eq. 3: Data_avg %.2f MiB/s x LSM-BA %.0f = %.2f MiB/s; Eq. 2 reservation %.2f MiB/s",
                            b.dataAvgPerSec() / Option.MIB,
                            b.lsmBa(),
                            b.backgroundBytesPerSec() / Option.MIB,
                            b.foregroundBytesPerSec() / Option.MIB)));
        }
        return actions;
    }

    /**
     * When the partitions' Eq. 2 reservations come to more than the node's bandwidth, or back within it: an event (an
     * I/O action that changes nothing, so that it is recorded with the node's other control events) and a log line.
     * Quotas that reserve more than the device carries cannot all be kept — every partition's background budget is
     * then at its floor, and tenants within their quotas can still wait for one another — and nothing else said so.
     */
    private java.util.Optional<Action> reservationsOverNode(List<FlexBudgets.Budget> out) {
        double reserved = 0;
        for (FlexBudgets.Budget b : out) {
            reserved += b.foregroundBytesPerSec();
        }
        boolean over = nodeBytesPerSec > 0 && reserved > nodeBytesPerSec;
        if (over == overcommitted) {
            return java.util.Optional.empty();
        }
        overcommitted = over;
        String state = String.format(
                "reservations=%.2fMiB/s %s node=%.2fMiB/s",
                reserved / Option.MIB, over ? ">" : "<=", nodeBytesPerSec / Option.MIB);
        String why = over
                ? "the partitions' Eq. 2 foreground reservations (RCU x 4 KiB x RAF + WCU x 1 KiB) exceed the node's"
                        + " bandwidth: the quotas are overcommitted and cannot all be kept; lower them or raise the node"
                : "the partitions' Eq. 2 reservations fit the node's bandwidth again";
        if (over) {
            log.warn("flex-partition: {}; {}", state, why);
        } else {
            log.info("flex-partition: {}; {}", state, why);
        }
        return java.util.Optional.of(new Action.ConfigureIo("io_reservations", state, io -> {}, why));
    }

    static int deepestLevel(LsmSnapshot s) {
        int deepest = 1;
        for (LevelInfo l : s.levels()) {
            if (l.bytes() > 0) {
                deepest = Math.max(deepest, l.level());
            }
        }
        return deepest;
    }

    /** ServiceLoader registration. */
    public static final class Provider implements ControlLoopProvider {
        /** It sets per-partition background limits in the priority Env (a probe, 2026-11-29: with env = default it was
         * accepted and failed at every window). */
        @Override
        public boolean needsPriorityEnv() {
            return true;
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "FlexEngine §4.2 partition level: per-partition background I/O caps from Eq. 3 (ingest over the last"
                    + " window x LSM-BA), leaving the Eq. 2 foreground reservations (RCU/WCU quotas) free; needs the"
                    + " priority Env, use with env.policy = flexengine. Reservations adding up to more than the node"
                    + " are reported (a control event reservations=..., and a warning).";
        }

        @Override
        public OptionSet optionSet() {
            return OPTIONS;
        }

        @Override
        public ControlLoop create(ControlContext ctx) {
            double node = ctx.get(NODE_MBPS) * Option.MIB;
            if (node == 0) {
                node = ctx.io().map(io -> nodeBytes(io.policy())).orElse(0.0);
            }
            FlexBudgets b = new FlexBudgets(
                    (long) (ctx.get(WINDOW_S) * 1e9), ctx.get(LEVEL_MULTIPLIER), ctx.get(FLOOR_MBPS) * Option.MIB);
            return new FlexPartitionLoop(b, ctx::quota, node);
        }

        private static double nodeBytes(IoPolicy p) {
            if (p instanceof IoPolicy.WeightedFair w && w.budget() != null) {
                return w.budget().bytesPerSecond();
            }
            if (p instanceof IoPolicy.StrictPriority s && s.budget() != null) {
                return s.budget().bytesPerSecond();
            }
            return 0;
        }
    }
}
