package dev.sluice.compaction.deferral;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;

/** Registers {@link Deferral} as "deferral". */
public final class DeferralProvider implements ControlLoopProvider {
    /** It reads the priority Env's device budget use and suspends compactions through it (a probe, 2026-11-29: with
     * env = default it was accepted and never acted). */
    @Override
    public boolean needsPriorityEnv() {
        return true;
    }

    static final Option<Double> HIGH = Option.doubleOption(
            "high",
            0.8,
            0.01,
            10,
            "fraction",
            "node I/O use (the Env's device budget use over the last second) at or above which stage 1 starts"
                    + " (FlexEngine §4.3: 80 %)");
    static final Option<Double> LOW = Option.doubleOption(
            "low", 0.6, 0, 10, "fraction", "node I/O use at or below which the calm ticks towards a resume count");
    static final Option<Integer> RESUME_TICKS = Option.intOption(
            "resume.ticks",
            3,
            1,
            100_000,
            "ticks",
            "ticks in a row at or below 'low' before resuming; then one partition per tick, longest suspended first");
    static final Option<Double> LSM_BA = Option.doubleOption(
            "lsm.ba",
            46,
            1,
            1000,
            "",
            "LSM-BA of Eq. 3: a partition's background budget is its ingest bytes/s x this (46 = levels L0..L3, f = 10)");
    static final Option<Integer> MAX_PARTITIONS = Option.intOption(
            "max.partitions",
            0,
            0,
            100_000,
            "partitions",
            "most partitions suspended per violating tick, those most over budget first (0 = every one over budget)");
    static final Option<Double> STAGE2_FRACTION = Option.doubleOption(
            "stage2.fraction",
            0.6,
            0.05,
            1,
            "fraction",
            "stage 2 starts when L0 reaches this fraction of level0_slowdown_writes_trigger (FlexEngine §4.3: 60 %)");
    static final Option<Integer> L0_FILES = Option.intOption(
            "l0.files", 4, 1, 1000, "files", "L0 files waiting before stage 1 runs an L0->L1 compaction");
    static final Option<Integer> INTRA_L0_MIN = Option.intOption(
            "intra.l0.min", 4, 2, 1000, "files", "fewest L0 files one intra-L0 merge takes (FlexEngine §4.3: 4)");
    static final Option<Integer> INTRA_L0_MAX =
            Option.intOption("intra.l0.max", 8, 2, 1000, "files", "most L0 files one intra-L0 merge takes");
    static final Option<Double> PENDING_TIMEOUT_S = Option.doubleOption(
            "pending.timeout.s",
            60,
            1,
            3600,
            "s",
            "files handed to a manual compaction that has not started after this long may be chosen again");

    static final Option<Double> RESUME_HOLD_S = Option.doubleOption(
            "resume.hold.s",
            30,
            0,
            3600,
            "s",
            "a resumed partition is not suspended again for this long, so its deferred compactions can run");

    @Override
    public String name() {
        return Deferral.NAME;
    }

    @Override
    public String description() {
        return "FlexEngine §4.3 two-stage compaction deferral: above the I/O watermark, suspend compactions other than"
                + " L0->L1 in the partitions most over their Eq. 3 background budget (pending-compaction stall limits"
                + " lifted meanwhile); near L0's stall trigger, suspend L0->L1 too and merge L0 files within L0;"
                + " resume oldest first when the device calms down. Needs the priority Env's device budget use (without one it"
                + " records one deferral_budget event saying so, and does not act).";
    }

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(
                HIGH,
                LOW,
                RESUME_TICKS,
                LSM_BA,
                MAX_PARTITIONS,
                STAGE2_FRACTION,
                L0_FILES,
                INTRA_L0_MIN,
                INTRA_L0_MAX,
                PENDING_TIMEOUT_S,
                RESUME_HOLD_S);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new Deferral(new Deferral.Settings(
                ctx.get(HIGH),
                ctx.get(LOW),
                ctx.get(RESUME_TICKS),
                ctx.get(LSM_BA),
                ctx.get(MAX_PARTITIONS),
                ctx.get(STAGE2_FRACTION),
                ctx.get(L0_FILES),
                ctx.get(INTRA_L0_MIN),
                ctx.get(INTRA_L0_MAX),
                (long) (ctx.get(PENDING_TIMEOUT_S) * 1e9),
                (long) (ctx.get(RESUME_HOLD_S) * 1e9)));
    }
}
