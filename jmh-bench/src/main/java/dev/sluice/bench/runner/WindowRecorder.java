package dev.sluice.bench.runner;

import dev.sluice.bench.workload.OpKind;
import dev.sluice.bench.workload.OpSink;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects every request's latency into one HdrHistogram {@link Recorder} per operation kind (wait-free for the
 * workers); once a second the window loop swaps out the interval histograms. Latencies are recorded in microseconds
 * (at least 1), 3 significant digits.
 */
final class WindowRecorder implements OpSink {
    private static final Logger log = LoggerFactory.getLogger(WindowRecorder.class);
    private static final int LOGGED_ERRORS = 5;

    private final Map<OpKind, Recorder> recorders = new EnumMap<>(OpKind.class);
    private final Map<OpKind, Histogram> recycled = new EnumMap<>(OpKind.class);
    private final LongAdder rejected = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicInteger logged = new AtomicInteger();

    private final WriteGaps gaps;

    WindowRecorder() {
        this(new WriteGaps());
    }

    /** Also reports every completed write's time to {@code gaps}. */
    WindowRecorder(WriteGaps gaps) {
        this.gaps = gaps;
        for (OpKind k : OpKind.values()) {
            recorders.put(k, new Recorder(3));
        }
    }

    @Override
    public void completed(OpKind kind, long latencyNanos) {
        recorders.get(kind).recordValue(Math.max(1, latencyNanos / 1000));
        if (kind.writes()) {
            gaps.completed(System.nanoTime());
        }
    }

    @Override
    public void rejected(OpKind kind) {
        rejected.increment();
    }

    @Override
    public void failed(OpKind kind, RuntimeException e) {
        errors.increment();
        if (logged.incrementAndGet() <= LOGGED_ERRORS) {
            log.warn("{} failed (only the first {} failures are logged)", kind.id(), LOGGED_ERRORS, e);
        }
    }

    /** What happened since the previous call. Called by one thread (the window loop). */
    record Interval(Map<OpKind, Histogram> perKind, long rejected, long errors) {}

    Interval take() {
        Map<OpKind, Histogram> out = new EnumMap<>(OpKind.class);
        for (OpKind k : OpKind.values()) {
            Histogram h = recorders.get(k).getIntervalHistogram(recycled.get(k));
            // Copy so the caller may keep it; the original is recycled next time.
            out.put(k, h.copy());
            recycled.put(k, h);
        }
        return new Interval(out, rejected.sumThenReset(), errors.sumThenReset());
    }
}
