package dev.sluice.e2e;

import dev.sluice.core.RequestKind;
import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.spi.AdmissionGate;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test-only controller "test-hooks": gives a test the node's priority Env (for fault injection), a counting admission
 * gate on the node's first partition, and a queue of actions the next tick applies. State is keyed by the node's first
 * partition name, so each test uses its own.
 */
public class NodeHooks implements ControlLoopProvider {
    static final Map<String, PriorityEnv> ENVS = new ConcurrentHashMap<>();
    static final Map<String, CountingGate> GATES = new ConcurrentHashMap<>();
    static final Map<String, Queue<Action>> ACTIONS = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "test-hooks";
    }

    @Override
    public String description() {
        return "test only";
    }

    @Override
    public Map<String, String> options() {
        return Map.of();
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        String key = ctx.partitions().get(0);
        ctx.io().ifPresent(io -> ENVS.put(key, (PriorityEnv) io));
        CountingGate gate = new CountingGate();
        ctx.installAdmissionGate(key, gate);
        GATES.put(key, gate);
        Queue<Action> queue = ACTIONS.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>());
        return new ControlLoop() {
            @Override
            public String name() {
                return "test-hooks";
            }

            @Override
            public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
                List<Action> out = new ArrayList<>();
                for (Action a; (a = queue.poll()) != null; ) {
                    out.add(a);
                }
                return out;
            }
        };
    }

    /** Admits everything and counts the tokens taken. */
    static final class CountingGate implements AdmissionGate {
        final AtomicLong writeTokens = new AtomicLong();
        final AtomicLong tokens = new AtomicLong();

        @Override
        public void acquire(RequestKind kind, long bytes) {
            tokens.incrementAndGet();
            if (kind == RequestKind.WRITE) {
                writeTokens.incrementAndGet();
            }
        }

        @Override
        public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes) {
            acquire(kind, bytes);
            return CompletableFuture.completedFuture(null);
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
