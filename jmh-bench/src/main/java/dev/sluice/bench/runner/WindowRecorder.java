package dev.sluice.bench.runner;

import dev.sluice.bench.workload.OpKind;
import dev.sluice.bench.workload.OpSink;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects every request's latency into HdrHistogram {@link Recorder}s per operation kind (wait-free for the workers),
 * each request in the 1-s window its completion time falls in: window k covers {@code [t0 + k s, t0 + (k+1) s)}. The
 * window loop takes the windows in order ({@link #take}), each once it has ended. Latencies are recorded in
 * microseconds (at least 1), 3 significant digits.
 *
 * <p>Until 2026-11-28 one recorder was swapped whenever the window loop woke after a boundary, so a loop that woke late
 * (a GC pause, the other core busy) moved the requests completed meanwhile into the window that had ended: in an
 * open-loop step from 0 to 50 requests/s the "0" second counted 8 of them, and that 8 became the stack's slowest
 * second and an 8× tail ratio (CLI probe). Now the loop's lateness does not matter: four windows are kept apart, so the
 * loop may take a window up to three seconds late. What still lands in a later window: a request whose window was taken
 * already when it is recorded (its worker read the clock, then was preempted past the loop's take), counted in the
 * oldest window not yet taken; and with the loop more than three seconds behind, requests completed later than that
 * count in the newest window it can still tell apart.
 */
final class WindowRecorder implements OpSink {
    private static final Logger log = LoggerFactory.getLogger(WindowRecorder.class);
    private static final int LOGGED_ERRORS = 5;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** Windows kept apart at once: the current one and up to three ended ones the loop has not taken yet. */
    static final int RING = 4;

    private static final class Slot {
        final Map<OpKind, Recorder> recorders = new EnumMap<>(OpKind.class);
        final Map<OpKind, Histogram> recycled = new EnumMap<>(OpKind.class);
        final LongAdder rejected = new LongAdder();
        final LongAdder errors = new LongAdder();

        Slot() {
            for (OpKind k : OpKind.values()) {
                recorders.put(k, new Recorder(3));
            }
        }
    }

    private final Slot[] slots = new Slot[RING];
    private final AtomicInteger logged = new AtomicInteger();
    private final WriteGaps gaps;
    private final long t0;
    private final LongSupplier clock;
    /** The oldest window not yet taken; written by the window loop only. */
    private volatile long open;

    /** Windows starting at {@code t0} ({@link System#nanoTime}); every completed write's time also goes to gaps. */
    WindowRecorder(WriteGaps gaps, long t0) {
        this(gaps, t0, System::nanoTime);
    }

    WindowRecorder(WriteGaps gaps, long t0, LongSupplier clock) {
        this.gaps = gaps;
        this.t0 = t0;
        this.clock = clock;
        for (int i = 0; i < RING; i++) {
            slots[i] = new Slot();
        }
    }

    /** The slot of the window {@code now} falls in, within the windows that can still be told apart. */
    private Slot slot(long now) {
        long w = now < t0 ? 0 : (now - t0) / SECOND;
        long oldest = open;
        if (w < oldest) {
            w = oldest;
        } else if (w >= oldest + RING) {
            w = oldest + RING - 1;
        }
        return slots[(int) (w % RING)];
    }

    @Override
    public void completed(OpKind kind, long latencyNanos) {
        long now = clock.getAsLong();
        slot(now).recorders.get(kind).recordValue(Math.max(1, latencyNanos / 1000));
        if (kind.writes()) {
            gaps.completed(now);
        }
    }

    @Override
    public void rejected(OpKind kind) {
        slot(clock.getAsLong()).rejected.increment();
    }

    @Override
    public void failed(OpKind kind, RuntimeException e) {
        slot(clock.getAsLong()).errors.increment();
        if (logged.incrementAndGet() <= LOGGED_ERRORS) {
            log.warn("{} failed (only the first {} failures are logged)", kind.id(), LOGGED_ERRORS, e);
        }
    }

    /** One window's requests. */
    record Interval(Map<OpKind, Histogram> perKind, long rejected, long errors) {}

    /**
     * The oldest window not yet taken; call it once that window has ended ({@code t0 + (k+1) s}). Called by one thread
     * (the window loop), for windows 0, 1, 2, ... in turn.
     */
    Interval take() {
        long k = open;
        Slot s = slots[(int) (k % RING)];
        open = k + 1; // first: requests of window k recorded from here on go to window k+1's slot, not into this one
        Map<OpKind, Histogram> out = new EnumMap<>(OpKind.class);
        for (OpKind kind : OpKind.values()) {
            // waits for recordings already in progress on this slot (the Recorder's phaser)
            Histogram h = s.recorders.get(kind).getIntervalHistogram(s.recycled.get(kind));
            out.put(kind, h.copy()); // the caller may keep it; the original is recycled next time
            s.recycled.put(kind, h);
        }
        return new Interval(out, s.rejected.sumThenReset(), s.errors.sumThenReset());
    }
}
