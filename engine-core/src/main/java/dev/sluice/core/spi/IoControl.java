package dev.sluice.core.spi;

import dev.sluice.core.sensor.IoClass;

/**
 * Run-time parameters of the priority Env's scheduler, set by controllers through {@link
 * dev.sluice.core.control.Action.ConfigureIo}. Thread-safety: may be called from any thread; changes take effect for the
 * next I/O (I/Os already waiting re-evaluate within a few milliseconds).
 *
 * <p>Order of checks for one I/O: the class cap ({@link #setClassLimit}), then the node policy ({@link #setPolicy}).
 * Compaction or flush I/O that RocksDB raises to {@code IO_USER} during a write stall bypasses class caps and is
 * scheduled in tier 0.
 */
public interface IoControl {
    /**
     * Caps one class at {@code opsPerSecond} operations and {@code bytesPerSecond} bytes per second; a value ≤ 0 or
     * infinite removes that cap.
     */
    void setClassLimit(IoClass ioClass, double opsPerSecond, double bytesPerSecond);

    /**
     * Caps one partition's background I/O (flush, compaction, prefetch) at {@code bytesPerSecond}; ≤ 0 removes the cap
     * (FlexEngine §4.2 partition level).
     */
    default void setPartitionBackgroundLimit(String partition, double bytesPerSecond) {
        throw new UnsupportedOperationException("this Env has no per-partition background limits");
    }

    /** Replaces the node-level scheduling policy. */
    default void setPolicy(IoPolicy policy) {
        throw new UnsupportedOperationException("this Env has no node-level I/O scheduler");
    }

    /** The current node-level policy. */
    default IoPolicy policy() {
        return IoPolicy.passThrough();
    }

    /**
     * Background I/Os (flush, compaction, prefetch) larger than {@code bytes} are cut into chunks of at most this size,
     * each scheduled on its own, so a large compaction read or write cannot hold back more urgent I/O (CruiseDB §VII).
     * 0 disables chunking. Chunking applies only while some scheduling (a cap, a policy or device emulation) is active.
     */
    default void setChunkBytes(long bytes) {
        throw new UnsupportedOperationException("this Env does not cut I/Os into chunks");
    }
}
