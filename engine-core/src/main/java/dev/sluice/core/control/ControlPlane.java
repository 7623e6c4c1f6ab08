package dev.sluice.core.control;

import com.google.common.base.Ticker;
import dev.sluice.core.sensor.NodeSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the single control thread (docs/architecture.md §2). Each tick: sample a {@link NodeSnapshot}; ask every {@link
 * ControlLoop} in configured order for its actions; reconcile; apply through {@link Actuators}; record every action as
 * a {@link ControlEvent}; notify snapshot listeners.
 *
 * <p><b>Reconciliation.</b> Actions are keyed by {@link Action#knob()}. Within one tick the first loop in the {@code
 * controls} order that sets a knob wins; later actions on that knob are recorded as {@code SUPERSEDED} and not applied.
 * So a user puts the controller whose word must stand first (e.g. deferral before ADOC, so a suspended partition is not
 * given more compaction threads). A loop that throws is logged as a FAILED event and the other loops still run.
 *
 * <p><b>Time.</b> All time comes from the injected {@link Ticker} (nanoseconds) and wall {@link Clock} (event
 * timestamps only). {@link #tickOnce()} runs one tick on the caller's thread, which tests use with a fake ticker.
 *
 * <p>Thread-safety: {@link #tickOnce()} is synchronized; the scheduled thread and direct callers never overlap.
 */
public final class ControlPlane implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);

    private final Ticker ticker;
    private final Clock clock;
    private final Duration period;
    private final Supplier<NodeSnapshot> sampler;
    private final Actuators actuators;
    private final List<ControlLoop> loops;
    private final ControlEventLog events;
    private final List<Consumer<NodeSnapshot>> listeners = new CopyOnWriteArrayList<>();
    private volatile NodeSnapshot latest;
    private volatile long ticks;
    private ScheduledExecutorService thread;
    private volatile boolean closed;

    public ControlPlane(
            Ticker ticker,
            Clock clock,
            Duration period,
            Supplier<NodeSnapshot> sampler,
            Actuators actuators,
            List<ControlLoop> loops,
            ControlEventLog events) {
        this.ticker = ticker;
        this.clock = clock;
        this.period = period;
        this.sampler = sampler;
        this.actuators = actuators;
        this.loops = List.copyOf(loops);
        this.events = events;
    }

    /** Starts ticking every period on a daemon thread named {@code sluice-control}. Idempotent. */
    public synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-control");
            t.setDaemon(true);
            return t;
        });
        long p = period.toNanos();
        thread.scheduleAtFixedRate(this::safeTick, p, p, TimeUnit.NANOSECONDS);
    }

    private void safeTick() {
        try {
            tickOnce();
        } catch (Throwable t) {
            if (!closed && !ownerClosing) {
                log.error("control tick failed; will retry next period", t);
            } else {
                log.debug("control tick ended by the node's close: {}", t.toString());
            }
        }
    }

    private volatile boolean ownerClosing;

    /**
     * The node is closing: a tick that fails from now on (its partitions refuse requests) is the close's doing, not an
     * error to report. Until 2026-11-26 such a tick logged an ERROR with a stack trace on an ordinary close.
     */
    public void ownerClosing() {
        ownerClosing = true;
    }

    /** Runs one tick now on the calling thread and returns the events it produced. */
    public synchronized List<ControlEvent> tickOnce() {
        if (closed) {
            throw new IllegalStateException("control plane is closed");
        }
        NodeSnapshot snap = sampler.get();
        latest = snap;
        long now = ticker.read();
        List<ControlEvent> produced = new ArrayList<>();
        Map<String, String> owner = new HashMap<>();
        for (ControlLoop loop : loops) {
            List<Action> actions;
            try {
                actions = loop.decide(snap, now);
            } catch (RuntimeException e) {
                produced.add(event(
                        now, loop.name(), "*", "decide", "decide", "", ControlEvent.Outcome.FAILED, e.toString()));
                continue;
            }
            for (Action a : actions) {
                String first = owner.putIfAbsent(a.knob(), loop.name());
                if (first != null) {
                    produced.add(event(
                            now,
                            loop.name(),
                            a.partition(),
                            a.knob(),
                            a.describe(),
                            a.reason(),
                            ControlEvent.Outcome.SUPERSEDED,
                            "set by " + first + " in the same tick"));
                    continue;
                }
                try {
                    a.applyTo(actuators);
                    produced.add(event(
                            now,
                            loop.name(),
                            a.partition(),
                            a.knob(),
                            a.describe(),
                            a.reason(),
                            ControlEvent.Outcome.APPLIED,
                            ""));
                } catch (RuntimeException e) {
                    produced.add(event(
                            now,
                            loop.name(),
                            a.partition(),
                            a.knob(),
                            a.describe(),
                            a.reason(),
                            ControlEvent.Outcome.FAILED,
                            String.valueOf(e.getMessage())));
                }
            }
        }
        for (ControlEvent e : produced) {
            events.record(e);
        }
        ticks++;
        for (Consumer<NodeSnapshot> l : listeners) {
            try {
                l.accept(snap);
            } catch (RuntimeException e) {
                log.warn("snapshot listener failed", e);
            }
        }
        return produced;
    }

    private ControlEvent event(
            long now,
            String controller,
            String partition,
            String knob,
            String action,
            String reason,
            ControlEvent.Outcome outcome,
            String detail) {
        return new ControlEvent(clock.instant(), now, controller, partition, knob, action, reason, outcome, detail);
    }

    /** Called after every tick with the tick's snapshot, on the tick thread. Keep it short. */
    public void addSnapshotListener(Consumer<NodeSnapshot> listener) {
        listeners.add(listener);
    }

    public void removeSnapshotListener(Consumer<NodeSnapshot> listener) {
        listeners.remove(listener);
    }

    /** The snapshot of the last tick, or null before the first. */
    public NodeSnapshot latest() {
        return latest;
    }

    public long ticks() {
        return ticks;
    }

    public List<String> loopNames() {
        return loops.stream().map(ControlLoop::name).toList();
    }

    public Duration period() {
        return period;
    }

    public ControlEventLog events() {
        return events;
    }

    /** Stops the tick thread and waits for a running tick to finish. Idempotent. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        if (t != null) {
            t.shutdownNow();
            try {
                if (!t.awaitTermination(10, TimeUnit.SECONDS)) {
                    log.warn("control thread did not stop within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
