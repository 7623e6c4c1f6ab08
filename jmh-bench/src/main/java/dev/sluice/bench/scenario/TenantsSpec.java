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
 * @param noisyPhases phases in which {@code noisy} offers {@code noisyFactor} × its quota rate (may be empty)
 * @param sloMs each tenant's latency SLO in ms: a write unit is served normally when it completes within it, was not
 *     throttled and not refused (FlexEngine §5.3); 0 = no SLO (no {@code normallyServedFraction})
 * @param quotaFollowsRate at each phase start, a tenant whose stack sets a quota gets its WCU quota set to the phase's
 *     rate (over-subscription scenarios: every tenant offers exactly its reservation)
 */
public record TenantsSpec(
        String noisy,
        double rcu,
        double wcu,
        double noisyFactor,
        List<String> noisyPhases,
        double sloMs,
        boolean quotaFollowsRate) {
    public TenantsSpec {
        noisyPhases = List.copyOf(noisyPhases);
    }

    public TenantsSpec(String noisy, double rcu, double wcu, double noisyFactor, List<String> noisyPhases) {
        this(noisy, rcu, wcu, noisyFactor, noisyPhases, 0, false);
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
