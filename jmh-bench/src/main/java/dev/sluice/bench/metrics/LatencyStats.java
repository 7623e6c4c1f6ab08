package dev.sluice.bench.metrics;

import org.HdrHistogram.Histogram;

/**
 * Latency summary of one operation kind over the measured windows, in microseconds. For open-loop phases latency runs
 * from the request's intended start (its scheduled arrival), so queueing behind a stall is counted (vLSM §5, no
 * coordinated omission); for closed-loop phases from the actual start.
 */
public record LatencyStats(long count, double meanUs, long p50Us, long p99Us, long p999Us, long maxUs) {
    public static final LatencyStats EMPTY = new LatencyStats(0, 0, 0, 0, 0, 0);

    public static LatencyStats of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencyStats(
                h.getTotalCount(),
                Math.round(h.getMean() * 10) / 10.0,
                h.getValueAtPercentile(50),
                h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9),
                h.getMaxValue());
    }
}
