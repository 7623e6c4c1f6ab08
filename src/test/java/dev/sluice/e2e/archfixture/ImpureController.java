package dev.sluice.e2e.archfixture;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.NodeSnapshot;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A controller that breaks every purity rule, so that {@code RepositoryRulesTest} can show each rule reports it. Never
 * registered (no ServiceLoader entry) and never run; it lives in its own package so the test imports it alone.
 */
public final class ImpureController implements ControlLoop {
    private org.rocksdb.Options engineOptions; // depends on the engine

    @Override
    public String name() {
        return "impure-fixture";
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        long a = System.nanoTime();
        long b = System.currentTimeMillis();
        Instant c = Instant.now();
        Clock d = Clock.systemUTC();
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        new Thread(() -> {}).start();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.shutdown();
        return List.of(
                new Action.SetAdmissionRate("p", a + b + c.getNano() + d.millis(), String.valueOf(engineOptions)));
    }

    /** A helper nested in a controller is held to the same rules. */
    static final class Helper {
        long now() {
            return System.nanoTime();
        }
    }
}
