package dev.sluice.compaction.adoc;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;

/** Registers {@link Adoc} as "adoc". */
public final class AdocProvider implements ControlLoopProvider {
    @Override
    public String name() {
        return "adoc";
    }

    @Override
    public String description() {
        return "ADOC automatic data overflow control (FAST'23 §5): every window detects L0 overflow, redundancy (pending"
                + " bytes) overflow and memtable overflow per partition, handles the first in L0O, RDO, MMO order and"
                + " tunes max_background_jobs (+2 / halve) and write_buffer_size (+64 MiB / halve) by AIMD, between the"
                + " profile's values and the maxima; the L0->L1 job's threads (max_subcompactions) follow the"
                + " compaction threads.";
    }

    static final Option<Double> WINDOW_SECONDS = Option.doubleOption(
            "window.seconds",
            1,
            0.01,
            3600,
            "s",
            "tuning window T_w: overflows seen in any tick of a window are handled at its end");
    static final Option<Integer> MAX_BACKGROUND_JOBS = Option.intOption(
            "max.background.jobs",
            8,
            1,
            256,
            "jobs",
            "most background threads (max_background_jobs) ADOC raises to (the paper gives none; 8 measured better than"
                    + " 16 on 2 cores, ADOC.md)");
    static final Option<Long> MAX_WRITE_BUFFER_BYTES = Option.longOption(
            "max.write.buffer.bytes",
            512L << 20,
            1L << 16,
            1L << 36,
            "bytes",
            "largest batch (write_buffer_size) ADOC raises to (512 MiB, ADOC §6.1)");
    static final Option<Integer> THREAD_STEP =
            Option.intOption("thread.step", 2, 1, 64, "jobs", "background threads added per window on L0O or RDO");
    static final Option<Long> BATCH_STEP_BYTES = Option.longOption(
            "batch.step.bytes",
            64L << 20,
            1L << 16,
            1L << 34,
            "bytes",
            "bytes added to write_buffer_size per window on MMO");
    static final Option<Double> EARLY_WARNING = Option.doubleOption(
            "early.warning",
            0.75,
            0.01,
            1,
            "fraction",
            "fraction of level0_slowdown_writes_trigger (L0O) and soft_pending_compaction_bytes_limit (RDO) at which an"
                    + " overflow counts; 1 = RocksDB's thresholds, as in the paper, where RocksDB's slowdown has already"
                    + " begun (ADOC.md)");
    static final Option<Double> MMO_ACTIVE_FRACTION = Option.doubleOption(
            "mmo.active.fraction",
            0.9,
            0.01,
            1,
            "fraction",
            "the active memtable counts as full (MMO, with an immutable memtable waiting) at this fraction of"
                    + " write_buffer_size");
    static final Option<Integer> QUIET_WINDOWS = Option.intOption(
            "quiet.windows",
            1,
            1,
            3600,
            "windows",
            "windows in a row without overflow before both knobs are halved back");

    static final Option<Integer> MAX_SUBCOMPACTIONS = Option.intOption(
            "max.subcompactions",
            4,
            1,
            64,
            "threads",
            "most threads one L0->L1 compaction may split into (RocksDB max_subcompactions); it follows the compaction"
                    + " threads (jobs - jobs/4) as ADOC tunes them, never below the profile's value; 1 = leave it alone"
                    + " (the paper's knobs only)");

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(
                WINDOW_SECONDS,
                MAX_BACKGROUND_JOBS,
                MAX_WRITE_BUFFER_BYTES,
                THREAD_STEP,
                BATCH_STEP_BYTES,
                EARLY_WARNING,
                MMO_ACTIVE_FRACTION,
                QUIET_WINDOWS,
                MAX_SUBCOMPACTIONS);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new Adoc(new Adoc.Settings(
                (long) (ctx.get(WINDOW_SECONDS) * 1e9),
                ctx.get(MAX_BACKGROUND_JOBS),
                ctx.get(MAX_WRITE_BUFFER_BYTES),
                ctx.get(THREAD_STEP),
                ctx.get(BATCH_STEP_BYTES),
                ctx.get(EARLY_WARNING),
                ctx.get(MMO_ACTIVE_FRACTION),
                ctx.get(QUIET_WINDOWS),
                ctx.get(MAX_SUBCOMPACTIONS)));
    }
}
