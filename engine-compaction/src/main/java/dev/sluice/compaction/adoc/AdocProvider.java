package dev.sluice.compaction.adoc;

import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import java.util.LinkedHashMap;
import java.util.Map;

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
                + " profile's values and the maxima.";
    }

    @Override
    public Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("window.seconds", "1 — tuning window T_w: overflows seen in any tick of a window are handled at its end");
        m.put("max.background.jobs", "16 — most background threads (max_background_jobs) ADOC raises to");
        m.put("max.write.buffer.bytes", "536870912 — largest batch (write_buffer_size) ADOC raises to (512 MiB, §6.1)");
        m.put("thread.step", "2 — background threads added per window on L0O or RDO");
        m.put("batch.step.bytes", "67108864 — bytes added to write_buffer_size per window on MMO");
        m.put(
                "early.warning",
                "1 — fraction of level0_slowdown_writes_trigger (L0O) and soft_pending_compaction_bytes_limit (RDO) at"
                        + " which an overflow counts; 1 = RocksDB's thresholds, as in the paper");
        m.put(
                "mmo.active.fraction",
                "0.9 — the active memtable counts as full (MMO, with an immutable memtable waiting) at this fraction of"
                        + " write_buffer_size");
        m.put("quiet.windows", "1 — windows in a row without overflow before both knobs are halved back");
        return m;
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new Adoc(new Adoc.Settings(
                (long) (ctx.doubleOption("window.seconds", 0.01, 3600) * 1e9),
                (int) ctx.longOption("max.background.jobs", 1, 256),
                ctx.longOption("max.write.buffer.bytes", 1L << 16, 1L << 36),
                (int) ctx.longOption("thread.step", 1, 64),
                ctx.longOption("batch.step.bytes", 1L << 16, 1L << 34),
                ctx.doubleOption("early.warning", 0.01, 1),
                ctx.doubleOption("mmo.active.fraction", 0.01, 1),
                (int) ctx.longOption("quiet.windows", 1, 3600)));
    }
}
