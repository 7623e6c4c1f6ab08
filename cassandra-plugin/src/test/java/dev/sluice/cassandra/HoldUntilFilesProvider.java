package dev.sluice.cassandra;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A test-only controller ("test-hold", on the node's classpath from test-classes): for each table whose name ends with
 * {@code suffix}, it switches automatic compactions off when it first sees the table, and on again once the table
 * holds {@code files} sstables. It speaks the same Actions as the real controllers, so the test sees the control plane
 * withhold Cassandra's background compactions and release them.
 */
public final class HoldUntilFilesProvider implements ControlLoopProvider {
    static final Option<String> SUFFIX = Option.of(
            "suffix", "text", "_held", "", false, String::trim, v -> null, v -> v, "text", "", "table name suffix");
    static final Option<Integer> FILES = Option.intOption("files", 6, 1, 1000, "sstables", "release at this count");

    @Override
    public String name() {
        return "test-hold";
    }

    @Override
    public String description() {
        return "test only: hold compactions of *_held tables until they hold N sstables";
    }

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(SUFFIX, FILES);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        String suffix = ctx.get(SUFFIX);
        int files = ctx.get(FILES);
        Set<String> holding = new HashSet<>();
        Set<String> released = new HashSet<>();
        return new ControlLoop() {
            @Override
            public String name() {
                return "test-hold";
            }

            @Override
            public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
                List<Action> out = new ArrayList<>();
                for (LsmSnapshot s : snapshot.partitions().values()) {
                    String p = s.partition();
                    if (!p.endsWith(suffix) || released.contains(p)) {
                        continue;
                    }
                    int n = s.levels().stream().mapToInt(LevelInfo::fileCount).sum();
                    if (n >= files) {
                        released.add(p);
                        holding.remove(p);
                        out.add(new Action.SetAutoCompactions(p, true, n + " sstables: release"));
                    } else if (holding.add(p)) {
                        out.add(new Action.SetAutoCompactions(p, false, n + " sstables: hold until " + files));
                    }
                }
                return out;
            }
        };
    }
}
