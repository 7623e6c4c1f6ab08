package dev.sluice.bench.scenario;

import dev.sluice.bench.workload.KeyDistribution;
import dev.sluice.bench.workload.LoadShape;
import dev.sluice.bench.workload.OpMix;

/**
 * One phase of a scenario.
 *
 * @param mode OPEN: requests arrive at intended times from {@code shape} (latency counted from the intended start);
 *     CLOSED: {@code threads} clients issue requests back to back
 * @param threads CLOSED: client threads; OPEN with SYNC dispatch: worker threads that execute the arriving requests;
 *     0 with ASYNC dispatch (no client threads)
 * @param shape OPEN only: offered rate over time (null for CLOSED)
 * @param poisson OPEN only: exponential inter-arrival times with the shape's rate instead of evenly spaced arrivals
 * @param dispatch OPEN: how an arrival reaches the store — SYNC: queued for a worker thread that calls the synchronous
 *     API; ASYNC: submitted at once through the async API (the admission gate sees the whole offered load). CLOSED: SYNC
 * @param maxBacklog OPEN with SYNC dispatch: arrivals that find this many requests waiting are dropped (and counted),
 *     bounding memory; 0 otherwise
 * @param maxInflight OPEN with ASYNC dispatch: arrivals that find this many requests submitted and not completed are
 *     dropped (and counted); 0 otherwise
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
        Dispatch dispatch,
        long maxBacklog,
        long maxInflight,
        OpMix mix,
        KeyDistribution distribution,
        int scanLength,
        boolean measured) {
    public enum Mode {
        OPEN,
        CLOSED
    }

    /** How an open-loop phase hands its arrivals to the store. */
    public enum Dispatch {
        SYNC,
        ASYNC
    }

    /** This phase with another open-loop shape (the runner resolves {@link LoadShape.OfCapacity} this way). */
    public PhaseSpec withShape(LoadShape newShape) {
        return new PhaseSpec(
                name,
                line,
                durationSeconds,
                mode,
                threads,
                newShape,
                poisson,
                dispatch,
                maxBacklog,
                maxInflight,
                mix,
                distribution,
                scanLength,
                measured);
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
                dispatch,
                maxBacklog,
                maxInflight,
                mix,
                distribution,
                scanLength,
                measured);
    }
}
