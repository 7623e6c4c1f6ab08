package dev.sluice.bench.workload;

import java.util.List;

/**
 * The offered request rate of an open-loop phase as a function of time since the phase began. Pure functions: the
 * same arguments always give the same rate (the Mixgraph noise is a hash of the interval number and a seed), so every
 * stack of a comparison is offered exactly the same load.
 */
public sealed interface LoadShape {
    /** Requests per second offered at {@code t} seconds into the phase (≥ 0). */
    double rateAt(double t);

    /** Mean rate over {@code [0, seconds)}, integrated numerically in 1 ms steps. */
    default double meanRate(double seconds) {
        if (seconds <= 0) {
            return rateAt(0);
        }
        int steps = (int) Math.max(1, Math.min(10_000_000, seconds * 1000));
        double sum = 0;
        for (int i = 0; i < steps; i++) {
            sum += rateAt((i + 0.5) * seconds / steps);
        }
        return sum / steps;
    }

    /**
     * A fraction of the throughput an earlier closed-loop phase of the same stack sustained (vLSM §5: latency measured
     * at a fixed share of each system's sustainable throughput, found by a profiling run). Resolved by the runner into a
     * {@link Constant} when the phase starts ({@link #resolve}); asking an unresolved one for a rate is an error.
     *
     * @param phase the earlier closed-loop phase whose mean throughput is the capacity
     * @param fraction share of the capacity offered, in (0, 1]
     */
    record OfCapacity(String phase, double fraction) implements LoadShape {
        public double rateAt(double t) {
            throw new IllegalStateException("the rate of " + this + " is known only once phase '" + phase
                    + "' has run: resolve it with the measured capacity first");
        }

        /** The constant rate {@code fraction × capacity}, rounded to 0.1 request/s (at least 1 request/s). */
        public Constant resolve(double capacityPerSecond) {
            return new Constant(Math.max(1, Math.round(fraction * capacityPerSecond * 10) / 10.0));
        }

        @Override
        public String toString() {
            return Math.round(fraction * 1000) / 10.0 + "% of phase " + phase + "'s closed-loop throughput";
        }
    }

    /** The same rate all the time. */
    record Constant(double rate) implements LoadShape {
        public double rateAt(double t) {
            return rate;
        }
    }

    /** {@code rates[0]} for the first {@code stepSeconds}, then {@code rates[1]}, ...; the last rate holds to the end. */
    record Step(List<Double> rates, double stepSeconds) implements LoadShape {
        public Step {
            rates = List.copyOf(rates);
        }

        public double rateAt(double t) {
            int i = (int) Math.floor(Math.max(0, t) / stepSeconds);
            return rates.get(Math.min(i, rates.size() - 1));
        }
    }

    /** A square wave: {@code high} for the first {@code duty} fraction of every period, {@code low} for the rest. */
    record Square(double low, double high, double periodSeconds, double duty) implements LoadShape {
        public double rateAt(double t) {
            double inPeriod = t - Math.floor(t / periodSeconds) * periodSeconds;
            return inPeriod < duty * periodSeconds ? high : low;
        }
    }

    /**
     * A Mixgraph-like fluctuation (db_bench's {@code mixgraph} QPS model used by Calcspar §3.2/§5.1): {@code mean +
     * amplitude·sin(2π·t/period + phase)}, held constant within each {@code intervalSeconds} and multiplied by a
     * pseudo-random factor uniform in {@code [1 − noise, 1 + noise]} (db_bench's {@code sine_mix_rate_noise}). Never
     * negative.
     */
    record Mixgraph(
            double mean,
            double amplitude,
            double periodSeconds,
            double phase,
            double noise,
            double intervalSeconds,
            long seed)
            implements LoadShape {
        public double rateAt(double t) {
            long interval = (long) Math.floor(Math.max(0, t) / intervalSeconds);
            double at = interval * intervalSeconds;
            double base = mean + amplitude * Math.sin(2 * Math.PI * at / periodSeconds + phase);
            double u = (mix(seed * 0x9E3779B97F4A7C15L + interval) >>> 11) * 0x1.0p-53; // [0, 1)
            return Math.max(0, base * (1 + noise * (2 * u - 1)));
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }
}
