package dev.sluice.core.sensor;

/**
 * Cumulative I/O counters of one {@link IoClass}: operations, bytes, nanoseconds spent waiting in the scheduler and
 * nanoseconds spent in the device (the real file system plus any emulated device).
 *
 * <p>Values are monotonically increasing since the partition (or Env) opened; a controller that needs a rate takes the
 * difference of two snapshots. A counter that the source cannot measure is {@code -1}.
 */
public record IoClassStats(long ops, long bytes, long waitNanos, long deviceNanos) {
    public static final IoClassStats ZERO = new IoClassStats(0, 0, 0, 0);

    public IoClassStats plus(IoClassStats o) {
        return new IoClassStats(
                add(ops, o.ops), add(bytes, o.bytes), add(waitNanos, o.waitNanos), add(deviceNanos, o.deviceNanos));
    }

    public IoClassStats minus(IoClassStats o) {
        return new IoClassStats(
                sub(ops, o.ops), sub(bytes, o.bytes), sub(waitNanos, o.waitNanos), sub(deviceNanos, o.deviceNanos));
    }

    private static long add(long a, long b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    private static long sub(long a, long b) {
        return a < 0 || b < 0 ? -1 : a - b;
    }
}
