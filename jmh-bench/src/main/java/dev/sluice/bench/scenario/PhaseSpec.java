package dev.sluice.bench.scenario;

import dev.sluice.bench.workload.KeyDistribution;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpMix;

/**
 * One phase of a scenario.
 *
 * @param mode OPEN: requests arrive at intended times from {@code shape} (latency counted from the intended start);
 *     CLOSED: {@code threads} clients issue requests back to back
 * @param threads CLOSED: client threads; OPEN: worker threads that execute the arriving requests
 * @param shape OPEN only: offered rate over time (null for CLOSED)
 * @param poisson OPEN only: exponential inter-arrival times with the shape's rate instead of evenly spaced arrivals
 * @param maxBacklog OPEN only: arrivals that find this many requests waiting are dropped (and counted), bounding memory
 * @param measured whether the phase's windows count in the summary metrics (a warm-up phase sets it false)
 * @param scanLength mean entries per SCAN (each scan reads a uniform 1..2·scanLength−1 entries)
 */
public record PhaseSpec(
        String name,
        int line,
        int durationSeconds,
        Mode mode,
        int threads,
        LoadShape shape,
        boolean poisson,
        long maxBacklog,
        OpMix mix,
        KeyDistribution distribution,
        int scanLength,
        boolean measured) {
    public enum Mode {
        OPEN,
        CLOSED
    }

    public PhaseSpec withDuration(int seconds) {
        return new PhaseSpec(
                name,
                line,
                seconds,
                mode,
                threads,
                shape,
                poisson,
                maxBacklog,
                mix,
                distribution,
                scanLength,
                measured);
    }
}
