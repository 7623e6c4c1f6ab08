package dev.sluice.bench.scenario;

import java.util.List;

/**
 * A multi-tenant scenario ({@code [tenants]} section): every partition of the node ({@code config.partitions}) is a
 * tenant with the same contract of {@code rcu} read units and {@code wcu} write units per second (FlexEngine §2.1; a
 * request of key + value up to 1 KiB is one unit). Each tenant runs its own open loop through the async API at the
 * phase's {@code rate}, except {@code noisy} during {@code noisyPhases}, which offers {@code noisyFactor} times the rate
 * its contract allows for the phase's mix ({@link #quotaRate}). Whether a stack enforces the contract is the stack's
 * own {@code config.partition.<name>.*} keys: the stock stack does not.
 *
 * @param noisy the tenant whose load changes
 * @param noisyPhases phases in which {@code noisy} offers {@code noisyFactor} × its quota rate
 */
public record TenantsSpec(String noisy, double rcu, double wcu, double noisyFactor, List<String> noisyPhases) {
    public TenantsSpec {
        noisyPhases = List.copyOf(noisyPhases);
    }

    /**
     * Requests per second the contract allows for a mix with these fractions of reads (read, scan; a read-modify-write
     * counts on both sides) and writes, one unit each: the rate at which the tighter of the two buckets is exactly full.
     */
    public double quotaRate(double readFraction, double writeFraction) {
        double r = readFraction > 0 ? readFraction / rcu : 0;
        double w = writeFraction > 0 ? writeFraction / wcu : 0;
        return 1 / Math.max(r, w);
    }
}
