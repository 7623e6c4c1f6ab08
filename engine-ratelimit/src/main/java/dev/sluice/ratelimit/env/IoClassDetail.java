package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClassStats;
import java.util.Arrays;

/**
 * Everything the priority Env counts for one I/O class (cumulative since the Env opened; subtract two snapshots for a
 * rate). {@link #toIoClassStats()} gives the engine-neutral view used in {@code LsmSnapshot}.
 *
 * @param ops data operations: reads and writes; a multi-read counts each request; chunks of a cut-up I/O count each
 * @param bytes bytes read or written
 * @param waitNanos time spent waiting in the scheduler (class caps and node policy)
 * @param deviceNanos time in the device for data operations (emulated delay + real file system)
 * @param syncOps sync, fsync and range-sync calls (not in {@code ops})
 * @param syncNanos time in those calls
 * @param urgentOps operations RocksDB marked {@code IO_USER} (compaction or flush raised during a write stall)
 * @param delayedOps operations that waited in the scheduler at all
 * @param faults operations failed or delayed by the fault injector
 * @param histogram device latency of data operations: {@code histogram[i]} counts latencies below {@link
 *     #bucketUpperMicros(int)} and at or above the previous bound; the last bucket is open
 */
public record IoClassDetail(
        long ops,
        long bytes,
        long waitNanos,
        long deviceNanos,
        long syncOps,
        long syncNanos,
        long urgentOps,
        long delayedOps,
        long faults,
        long[] histogram) {
    public static final int BUCKETS = 24;

    public IoClassDetail {
        histogram = histogram.clone();
    }

    static IoClassDetail fromNative(long[] raw, int offset) {
        return new IoClassDetail(
                raw[offset],
                raw[offset + 1],
                raw[offset + 2],
                raw[offset + 3],
                raw[offset + 4],
                raw[offset + 5],
                raw[offset + 6],
                raw[offset + 7],
                raw[offset + 8],
                Arrays.copyOfRange(raw, offset + 9, offset + 9 + BUCKETS));
    }

    /** Exclusive upper bound of bucket {@code i} in microseconds (bucket 0: below 1 µs); the last bucket is open. */
    public static long bucketUpperMicros(int i) {
        return i >= BUCKETS - 1 ? Long.MAX_VALUE : 1L << i;
    }

    @Override
    public long[] histogram() {
        return histogram.clone();
    }

    /** The engine-neutral counters: device time includes sync time. */
    public IoClassStats toIoClassStats() {
        return new IoClassStats(ops, bytes, waitNanos, deviceNanos + syncNanos);
    }

    /** Mean device latency per data operation in nanoseconds (0 without operations). */
    public double meanDeviceNanos() {
        return ops == 0 ? 0 : (double) deviceNanos / ops;
    }

    /**
     * Upper bound (µs) of the bucket holding the {@code q}-quantile of device latency; a histogram with power-of-two
     * buckets overestimates by up to 2×. Returns 0 without operations.
     */
    public long quantileUpperMicros(double q) {
        long total = Arrays.stream(histogram).sum();
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += histogram[i];
            if (seen >= rank) {
                return bucketUpperMicros(i);
            }
        }
        return bucketUpperMicros(BUCKETS - 1);
    }

    public IoClassDetail minus(IoClassDetail o) {
        long[] h = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            h[i] = histogram[i] - o.histogram[i];
        }
        return new IoClassDetail(
                ops - o.ops,
                bytes - o.bytes,
                waitNanos - o.waitNanos,
                deviceNanos - o.deviceNanos,
                syncOps - o.syncOps,
                syncNanos - o.syncNanos,
                urgentOps - o.urgentOps,
                delayedOps - o.delayedOps,
                faults - o.faults,
                h);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IoClassDetail d
                && ops == d.ops
                && bytes == d.bytes
                && waitNanos == d.waitNanos
                && deviceNanos == d.deviceNanos
                && syncOps == d.syncOps
                && syncNanos == d.syncNanos
                && urgentOps == d.urgentOps
                && delayedOps == d.delayedOps
                && faults == d.faults
                && Arrays.equals(histogram, d.histogram);
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(ops) + Arrays.hashCode(histogram);
    }

    @Override
    public String toString() {
        return "IoClassDetail[ops=" + ops + ", bytes=" + bytes + ", waitNanos=" + waitNanos + ", deviceNanos="
                + deviceNanos + ", syncOps=" + syncOps + ", urgentOps=" + urgentOps + ", delayedOps=" + delayedOps
                + ", faults=" + faults + "]";
    }
}
