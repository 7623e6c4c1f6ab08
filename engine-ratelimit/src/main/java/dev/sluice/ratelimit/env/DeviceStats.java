package dev.sluice.ratelimit.env;

/**
 * Cumulative counters of the emulated {@link ContractDevice} (all zero while it is disabled).
 *
 * @param regularOps I/Os served with a regular token
 * @param overdraftOps I/Os that had to borrow (Calcspar's overdraft)
 * @param overdraftDelayNanos sum over overdrawn I/Os of their modelled latency
 * @param regularDelayNanos sum over regular I/Os of their modelled latency
 * @param poolWaits overdrawn I/Os that found the borrowing pool empty and waited for the next refill
 * @param units IOPS tokens consumed (an I/O costs one per started I/O unit)
 * @param readBytes bytes read through the model
 * @param writeBytes bytes written through the model
 * @param syncOps syncs (base latency, no token)
 */
public record DeviceStats(
        long regularOps,
        long overdraftOps,
        long overdraftDelayNanos,
        long regularDelayNanos,
        long poolWaits,
        long units,
        long readBytes,
        long writeBytes,
        long syncOps) {

    static DeviceStats fromNative(long[] r) {
        return new DeviceStats(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
    }

    public long ops() {
        return regularOps + overdraftOps;
    }

    public double meanOverdraftLatencyNanos() {
        return overdraftOps == 0 ? 0 : (double) overdraftDelayNanos / overdraftOps;
    }

    public double meanRegularLatencyNanos() {
        return regularOps == 0 ? 0 : (double) regularDelayNanos / regularOps;
    }

    public DeviceStats minus(DeviceStats o) {
        return new DeviceStats(
                regularOps - o.regularOps,
                overdraftOps - o.overdraftOps,
                overdraftDelayNanos - o.overdraftDelayNanos,
                regularDelayNanos - o.regularDelayNanos,
                poolWaits - o.poolWaits,
                units - o.units,
                readBytes - o.readBytes,
                writeBytes - o.writeBytes,
                syncOps - o.syncOps);
    }
}
