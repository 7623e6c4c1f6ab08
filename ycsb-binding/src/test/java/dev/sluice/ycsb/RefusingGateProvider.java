package dev.sluice.ycsb;

import dev.sluice.core.OverloadedException;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.spi.AdmissionGate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A test controller ({@code controls = ycsb-test-refuse}) that installs an admission gate on every partition which,
 * while {@link #refusing} is set, refuses every request the way a real gate does when its queue bound is exceeded:
 * with {@link OverloadedException}, or {@link QuotaExceededException} when {@code control.ycsb-test-refuse.mode=quota}.
 * Lets the binding's status mapping be tested through the engine's real admission path.
 */
public final class RefusingGateProvider implements ControlLoopProvider {
    static volatile boolean refusing;

    @Override
    public String name() {
        return "ycsb-test-refuse";
    }

    @Override
    public String description() {
        return "test only: refuses every request while switched on";
    }

    @Override
    public Map<String, String> options() {
        return Map.of("mode", "overloaded — overloaded or quota");
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        boolean quota = ctx.options().get("mode").equals("quota");
        for (String p : ctx.partitions()) {
            ctx.installAdmissionGate(p, new Gate(p, quota));
        }
        return new ControlLoop() {
            @Override
            public String name() {
                return "ycsb-test-refuse";
            }

            @Override
            public List<dev.sluice.core.control.Action> decide(
                    dev.sluice.core.sensor.NodeSnapshot snapshot, long nowNanos) {
                return List.of();
            }
        };
    }

    private record Gate(String partition, boolean quota) implements AdmissionGate {
        @Override
        public void acquire(RequestKind kind, long bytes) {
            if (refusing) {
                throw quota
                        ? new QuotaExceededException(partition + ": test quota exceeded")
                        : new OverloadedException(partition + ": test gate refuses " + kind);
            }
        }

        @Override
        public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes) {
            try {
                acquire(kind, bytes);
                return CompletableFuture.completedFuture(null);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public void setRate(double requestsPerSecond) {}

        @Override
        public double rate() {
            return Double.POSITIVE_INFINITY;
        }

        @Override
        public int queued() {
            return 0;
        }

        @Override
        public long rejected() {
            return 0;
        }

        @Override
        public void close() {}
    }
}
