package dev.sluice.compaction.vlsm;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;

/** Registers {@link VlsmL0} as "vlsm-l0". */
public final class VlsmL0Provider implements ControlLoopProvider {
    @Override
    public String name() {
        return VlsmL0.NAME;
    }

    @Override
    public String description() {
        return "vLSM FIFO L0 (§4.1): moves one L0 SST at a time, oldest first, into L1 with compactFiles (RocksDB adds"
                + " the L1 files it overlaps), one move in flight per partition; RocksDB's own L0 compaction is kept out"
                + " by raising level0_file_num_compaction_trigger to the slowdown trigger (handed back after max.failures"
                + " failed moves). Meant for the vlsm profile.";
    }

    static final Option<Integer> L0_FILES_MIN = Option.intOption(
            "l0.files.min", 1, 1, 1000, "files", "L0 files at or above which the oldest is moved to L1");
    static final Option<Double> TIMEOUT_SECONDS = Option.doubleOption(
            "timeout.seconds",
            30,
            0.1,
            3600,
            "s",
            "a move whose file is still in L0 after this long counts as failed and the next tick picks again");
    static final Option<Integer> MAX_FAILURES = Option.intOption(
            "max.failures",
            3,
            1,
            1000,
            "moves",
            "failed moves in a row after which L0 is handed back to RocksDB (compaction trigger restored)");
    static final Option<Double> BACKOFF_SECONDS = Option.doubleOption(
            "backoff.seconds", 60, 0, 86400, "s", "how long L0 stays with RocksDB after a hand-back");

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(L0_FILES_MIN, TIMEOUT_SECONDS, MAX_FAILURES, BACKOFF_SECONDS);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new VlsmL0(ctx.get(L0_FILES_MIN), (long) (ctx.get(TIMEOUT_SECONDS) * 1e9), ctx.get(MAX_FAILURES), (long)
                (ctx.get(BACKOFF_SECONDS) * 1e9));
    }
}
