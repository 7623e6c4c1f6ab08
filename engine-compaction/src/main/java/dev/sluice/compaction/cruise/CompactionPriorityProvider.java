package dev.sluice.compaction.cruise;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;

/** Registers {@link CompactionPriority} as "cruise-compaction-priority". */
public final class CompactionPriorityProvider implements ControlLoopProvider {
    @Override
    public String name() {
        return "cruise-compaction-priority";
    }

    @Override
    public String description() {
        return "CruiseDB compaction priority (§VI-B): a level over ratio x its target is compacted at once into the next"
                + " level (manual compactFiles of a run of adjacent files), ahead of RocksDB's queue; when a running"
                + " memory->L1 merge holds all of its files, automatic compactions pause until that compaction has"
                + " started (bounded by hold.seconds and by half the L0 slowdown trigger). Optionally (budget.watermark)"
                + " a batch of the base level is sized to end before the memory buffer fills to that level, and"
                + " (drain.l0.trigger) an oversized base level is left to RocksDB's own picker with L0's compaction"
                + " trigger raised.";
    }

    static final Option<Double> RATIO = Option.doubleOption(
            "ratio", 5, 1, 1000, "", "a level over this multiple of its target size is compacted first");
    static final Option<Long> MAX_FILES =
            Option.longOption("max.files", 4, 1, 1000, "files", "most files in one prioritized compaction");
    static final Option<Long> MAX_BYTES = Option.longOption(
            "max.bytes",
            256L << 20,
            1 << 20,
            1L << 40,
            "bytes",
            "most input bytes of the level in one prioritized" + " compaction");
    static final Option<Double> TIMEOUT_SECONDS = Option.doubleOption(
            "timeout.seconds", 120, 1, 86400, "s", "a batch still not done after this long no longer blocks the next");
    static final Option<Double> HOLD_SECONDS = Option.doubleOption(
            "hold.seconds",
            120,
            0,
            3600,
            "s",
            "longest pause of automatic compactions while waiting for the oversized level's files (0 = never pause)");

    static final Option<Double> BUDGET_WATERMARK = Option.doubleOption(
            "budget.watermark",
            0,
            0,
            1,
            "fraction",
            "0 = off; else a prioritized batch of the base level takes only files whose compaction (with the next"
                    + " level's files over their key span, at the smoothed compaction I/O rate) ends before the memory"
                    + " buffer (memtables + unmerged L0) reaches this fill level at the recent user write rate; none"
                    + " starts when not even one file fits. Bounds nothing until a compaction has been measured");

    static final Option<Long> DRAIN_L0_TRIGGER = Option.longOption(
            "drain.l0.trigger",
            0,
            0,
            10_000,
            "files",
            "0 = off; else while the base level (the level L0 merges into) is over ratio x its target, raise"
                    + " level0_file_num_compaction_trigger to this many files (at most the slowdown trigger) so that"
                    + " RocksDB's own picker compacts the base level into the next level before the next memory->L1"
                    + " merge, with no prioritized batches or holds for the base level meanwhile; the trigger goes"
                    + " back when the base level is at its target or the buffer reaches budget.watermark. RocksDB"
                    + " only (a Cassandra table has no such trigger)");

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(
                RATIO, MAX_FILES, MAX_BYTES, TIMEOUT_SECONDS, HOLD_SECONDS, BUDGET_WATERMARK, DRAIN_L0_TRIGGER);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new CompactionPriority(
                ctx.get(RATIO),
                (int) (long) ctx.get(MAX_FILES),
                ctx.get(MAX_BYTES),
                (long) (ctx.get(TIMEOUT_SECONDS) * 1e9),
                (long) (ctx.get(HOLD_SECONDS) * 1e9),
                ctx.get(BUDGET_WATERMARK),
                (int) (long) ctx.get(DRAIN_L0_TRIGGER));
    }
}
