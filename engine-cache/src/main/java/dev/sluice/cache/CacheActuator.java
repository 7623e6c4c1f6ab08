package dev.sluice.cache;

import java.util.List;

/**
 * The knobs of the Calcspar cache that {@link CacheController}'s actions turn (a thin actuator: each call only stores a
 * value the prefetcher and the read path pick up). Implemented by {@link CalcsparCache}.
 *
 * <p>Thread-safety: called from the control plane's tick thread; implementations publish the values safely.
 */
interface CacheActuator {
    void setMode(CacheMode mode);

    /** I/O units per second the prefetcher may spend (spare paid IOPS); 0 stops it. */
    void setPrefetchBudget(double unitsPerSecond);

    /** A new SST layout of the partition: the hotness table is cut into blocks again. */
    void setLayout(String partition, List<HotnessTable.Extent> files);

    /** Key ranges {@code [first, last]} (both inclusive) of the partition's L0/L1 files to read again into the cache. */
    void rewarm(String partition, List<KeyRangeBytes> ranges);

    /** An inclusive key range of an SST file. */
    record KeyRangeBytes(byte[] first, byte[] last) {}
}
