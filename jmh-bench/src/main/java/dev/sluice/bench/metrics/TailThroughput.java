package dev.sluice.bench.metrics;

import java.util.Arrays;

/**
 * Tail throughput, CruiseDB §III-A Definition III.3 and Eq. 1: the throughput a service can promise for every small
 * window of time. With per-window throughputs {@code th_1..th_N} (1-s windows here):
 *
 * <pre>
 *   L = the th_i sorted in descending order
 *   Th_tail(P) = L[⌈N · P / 100⌉]      (1-based)
 * </pre>
 *
 * <p>So at least P % of the windows ran at Th_tail or faster. Worked examples: N = 100 windows, P = 99 → the 99th of the
 * descending list, i.e. the second-lowest window; N = 500 (the paper's 500-s runs), P = 99 → position 495, the sixth
 * lowest; N = 10, P = 95 → position ⌈9.5⌉ = 10, the lowest. The rounding is the paper's bracket read as a ceiling — the
 * one choice for which "P % of windows reached it" holds for every N.
 */
public final class TailThroughput {
    private TailThroughput() {}

    /**
     * @param windowThroughputs operations per second of each window (any order; not modified)
     * @param percent P in (0, 100]
     * @return Th_tail, or 0 when there are no windows
     */
    public static double of(double[] windowThroughputs, double percent) {
        if (!(percent > 0 && percent <= 100)) {
            throw new IllegalArgumentException("percent must be in (0, 100], got " + percent);
        }
        int n = windowThroughputs.length;
        if (n == 0) {
            return 0;
        }
        double[] sorted = windowThroughputs.clone();
        Arrays.sort(sorted); // ascending; descending position k (1-based) is ascending index n - k
        int k = (int) Math.ceil(n * percent / 100.0 - 1e-9);
        k = Math.max(1, Math.min(n, k));
        return sorted[n - k];
    }
}
