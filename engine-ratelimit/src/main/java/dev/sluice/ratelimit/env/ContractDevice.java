package dev.sluice.ratelimit.env;

import java.time.Duration;

/**
 * The emulated cloud volume placed between the scheduler and the real file system (Calcspar §2.2–2.3; equations in
 * DEVICE.md next to this class): base latency, read and write bandwidth caps, and paid IOPS with the overdraft rule.
 *
 * <p>An approximation of EBS, not EBS: the model is Calcspar's speculation (regular tokens, a borrowing pool, 1/IOPS
 * punitive latency, W = L/A queueing) turned into a deterministic simulator, with EBS-style I/O units (an I/O of up to
 * {@code ioUnitBytes} costs one IOPS token). Sleeps have the kernel's timer slack (~50–100 µs) on top of the model.
 *
 * @param enabled whether I/O passes through the model at all
 * @param paidIops A, tokens per second; 0 = no IOPS contract
 * @param readBytesPerSecond read bandwidth cap; 0 = none
 * @param writeBytesPerSecond write bandwidth cap; 0 = none
 * @param baseLatency latency of an I/O that holds a regular token
 * @param overdraftPool borrowing pool size in tokens; 0 = equal to {@code paidIops} (as in the paper)
 * @param ioUnitBytes I/O size that costs one token (EBS counts up to 256 KiB as one I/O)
 */
public record ContractDevice(
        boolean enabled,
        double paidIops,
        double readBytesPerSecond,
        double writeBytesPerSecond,
        Duration baseLatency,
        double overdraftPool,
        long ioUnitBytes) {
    public static final ContractDevice DISABLED = new ContractDevice(false, 0, 0, 0, Duration.ZERO, 0, 256 * 1024);

    public ContractDevice {
        requireNonNegativeFinite("paidIops", paidIops);
        requireNonNegativeFinite("readBytesPerSecond", readBytesPerSecond);
        requireNonNegativeFinite("writeBytesPerSecond", writeBytesPerSecond);
        requireNonNegativeFinite("overdraftPool", overdraftPool);
        if (baseLatency == null || baseLatency.isNegative() || baseLatency.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("baseLatency must be between 0 and 1 s, got " + baseLatency);
        }
        if (ioUnitBytes < 512 || ioUnitBytes > 64L * 1024 * 1024) {
            throw new IllegalArgumentException("ioUnitBytes must be between 512 B and 64 MiB, got " + ioUnitBytes);
        }
    }

    /**
     * An AWS gp3 volume at its baseline: 3,000 IOPS, 125 MiB/s (modelled per direction), ~300 µs latency (Calcspar
     * Table 1).
     */
    public static ContractDevice gp3() {
        return new ContractDevice(
                true, 3000, 125.0 * (1 << 20), 125.0 * (1 << 20), Duration.ofNanos(300_000), 0, 256 * 1024);
    }

    public ContractDevice withPaidIops(double iops) {
        return new ContractDevice(
                enabled, iops, readBytesPerSecond, writeBytesPerSecond, baseLatency, overdraftPool, ioUnitBytes);
    }

    public ContractDevice withBandwidth(double readBps, double writeBps) {
        return new ContractDevice(enabled, paidIops, readBps, writeBps, baseLatency, overdraftPool, ioUnitBytes);
    }

    public ContractDevice withBaseLatency(Duration latency) {
        return new ContractDevice(
                enabled, paidIops, readBytesPerSecond, writeBytesPerSecond, latency, overdraftPool, ioUnitBytes);
    }

    /** Paid IOPS A as a latency: the punitive latency of one overdrawn I/O, 1/A. */
    public Duration punitiveLatency() {
        return paidIops > 0 ? Duration.ofNanos((long) (1e9 / paidIops)) : Duration.ZERO;
    }

    private static void requireNonNegativeFinite(String field, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(field + " must be ≥ 0 and finite, got " + v);
        }
    }
}
