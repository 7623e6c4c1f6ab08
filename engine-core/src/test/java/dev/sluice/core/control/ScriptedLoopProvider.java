package dev.sluice.core.control;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/**
 * Test controllers registered through ServiceLoader (test resources): "scripted-a" and "scripted-b" return whatever
 * the test put in {@link #SCRIPTS}, and record the snapshots and times they were given.
 */
public class ScriptedLoopProvider implements ControlLoopProvider {
    public static final Map<String, List<BiFunction<NodeSnapshot, Long, List<Action>>>> SCRIPTS =
            Map.of("scripted-a", new CopyOnWriteArrayList<>(), "scripted-b", new CopyOnWriteArrayList<>());
    public static final List<Long> SEEN_TIMES = new CopyOnWriteArrayList<>();

    private final String name;

    public ScriptedLoopProvider() {
        this("scripted-a");
    }

    ScriptedLoopProvider(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "test";
    }

    static final Option<Double> GAIN = Option.doubleOption("gain", 1.0, 0, 10, "", "a test option");

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(GAIN);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        ctx.get(GAIN);
        return new ControlLoop() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
                SEEN_TIMES.add(nowNanos);
                List<Action> out = new ArrayList<>();
                for (var f : SCRIPTS.get(name)) {
                    out.addAll(f.apply(snapshot, nowNanos));
                }
                return out;
            }
        };
    }

    /** Second registration with another name. */
    public static class B extends ScriptedLoopProvider {
        public B() {
            super("scripted-b");
        }
    }
}
