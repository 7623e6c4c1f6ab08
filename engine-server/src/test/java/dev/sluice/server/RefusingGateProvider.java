package dev.sluice.server;

import dev.sluice.core.OverloadedException;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.spi.AdmissionGate;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A test controller ({@code controls = server-test-quota}) whose gate refuses writes with {@link
 * QuotaExceededException} the way a quota gate does, so the {@code -QUOTA} mapping is tested through the engine's real
 * admission path (no quota controller exists yet).
 */
public final class RefusingGateProvider implements ControlLoopProvider {
    static final Option<String> MODE =
            Option.choiceOption("mode", "quota", List.of("quota", "overloaded"), "how writes are refused");

    @Override
    public String name() {
        return "server-test-quota";
    }

    @Override
    public String description() {
        return "test only: refuses every write";
    }

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(MODE);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        boolean quota = ctx.get(MODE).equals("quota");
        for (String p : ctx.partitions()) {
            ctx.installAdmissionGate(p, new Gate(p, quota));
        }
        return new ControlLoop() {
            @Override
            public String name() {
                return "server-test-quota";
            }

            @Override
            public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
                return List.of();
            }
        };
    }

    private record Gate(String partition, boolean quota) implements AdmissionGate {
        @Override
        public void acquire(RequestKind kind, long bytes) {
            if (kind == RequestKind.WRITE) {
                throw quota
                        ? new QuotaExceededException(partition + ": write quota exceeded (test gate)")
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
