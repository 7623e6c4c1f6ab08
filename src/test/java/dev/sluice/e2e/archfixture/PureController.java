package dev.sluice.e2e.archfixture;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.List;

/** A controller that keeps the rules (time only from {@code nowNanos}): the purity rules must not report it. */
public final class PureController implements ControlLoop {
    private long last;

    @Override
    public String name() {
        return "pure-fixture";
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        long elapsed = nowNanos - last;
        last = nowNanos;
        return elapsed > 1_000_000_000L ? List.of(new Action.SetAdmissionRate("p", 100, "fixture")) : List.of();
    }
}
