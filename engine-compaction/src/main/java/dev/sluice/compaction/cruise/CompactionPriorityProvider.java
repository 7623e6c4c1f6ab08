package dev.sluice.compaction.cruise;

import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import java.util.LinkedHashMap;
import java.util.Map;

/** Registers {@link CompactionPriority} as "cruise-compaction-priority". */
public final class CompactionPriorityProvider implements ControlLoopProvider {
    @Override
    public String name() {
        return "cruise-compaction-priority";
    }

    @Override
    public String description() {
        return "CruiseDB compaction priority (§VI-B): a level over ratio x its target is compacted at once into the next"
                + " level (manual compactFiles), ahead of RocksDB's queue; when a running memory->L1 merge holds all of its"
                + " files, automatic compactions pause until that compaction has started (bounded by hold.seconds and by"
                + " half the L0 slowdown trigger).";
    }

    @Override
    public Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("ratio", "5 — a level over this multiple of its target size is compacted first");
        m.put("max.files", "4 — most files in one prioritized compaction");
        m.put("max.bytes", "268435456 — most input bytes of the level in one prioritized compaction");
        m.put("timeout.seconds", "120 — a batch still not done after this long no longer blocks the next");
        m.put(
                "hold.seconds",
                "120 — longest pause of automatic compactions while waiting for the oversized level's files (0 = never"
                        + " pause)");
        return m;
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        return new CompactionPriority(
                ctx.doubleOption("ratio", 1, 1000),
                (int) ctx.longOption("max.files", 1, 1000),
                ctx.longOption("max.bytes", 1 << 20, 1L << 40),
                (long) (ctx.doubleOption("timeout.seconds", 1, 86400) * 1e9),
                (long) (ctx.doubleOption("hold.seconds", 0, 3600) * 1e9));
    }
}
