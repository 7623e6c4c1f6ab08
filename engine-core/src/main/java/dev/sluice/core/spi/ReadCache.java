package dev.sluice.core.spi;

import java.util.function.BiConsumer;

/**
 * A cache of key → value in front of a partition's point reads (engine-cache's Calcspar cache implements it; installed
 * by a controller with {@link dev.sluice.core.control.ControlContext#installReadCache}). Core calls it from {@code
 * get}/{@code multiGet} and from every write.
 *
 * <h2>Coherence protocol (a cached read is never stale)</h2>
 *
 * <ol>
 *   <li>A read first calls {@link #lookup}; on a hit it returns the cached value and never touches the engine.
 *   <li>On a miss it takes {@link #stamp()} <em>before</em> reading the engine, reads, then calls {@link #fill} with the
 *       value it read (null = absent) and that stamp. The cache must drop the fill when any write to that key was
 *       invalidated after the stamp was taken.
 *   <li>Every write (put, delete, each key of a batch) calls {@link #invalidate} after the engine applied it (or
 *       failed: a failed write may still have reached the memtable) and <em>before</em> the write is acknowledged.
 * </ol>
 *
 * After a write is acknowledged no read can return an older value: an entry cached before the write was removed by
 * the invalidation, and a fill that read the old value carries a stamp older than the invalidation and is refused.
 * {@link #invalidateAll} is called when the engine reopens (a crash recovery through {@code Partition.resume()}).
 *
 * <p>Thread-safety: every method may be called from any thread concurrently. Arrays passed in are not kept (the cache
 * copies them); arrays returned are the caller's.
 */
public interface ReadCache extends AutoCloseable {
    /** A cache hit: the value, or null when the key is known to be absent. */
    record Cached(byte[] value) {}

    /** Called once by the node when the cache is installed, with the engine reader prefetches use. */
    void bind(Source source);

    /** The cached value of {@code key} (a copy), or null on a miss. */
    Cached lookup(byte[] key);

    /** A stamp to take before reading the engine on a miss; pass it to {@link #fill}. */
    long stamp();

    /** Offers what the engine returned for {@code key} (null = absent) for caching; refused if a write came after. */
    void fill(byte[] key, byte[] value, long stamp);

    /** Removes {@code key}; called after the engine applied a write to it and before the write is acknowledged. */
    void invalidate(byte[] key);

    /** Removes every entry of this partition. */
    void invalidateAll();

    /** Stops background work (prefetch); called when the partition closes. */
    @Override
    void close();

    /** Reads the engine directly, bypassing admission and the cache (for prefetch and write-through). */
    interface Source {
        String partition();

        /**
         * The engine's current value of {@code key} (null = absent), read on the calling thread. A cache that keeps
         * written keys of a cached range up to date calls it from {@link #invalidate}, where the key was just written
         * and is almost always in the memtable. Throws {@link IllegalStateException} when the partition is closed and
         * a {@code SluiceException} when it cannot read.
         */
        byte[] get(byte[] key);

        /**
         * Visits the entries of {@code [fromInclusive, toExclusive)} (null = unbounded) in key order, at most {@code
         * maxEntries}, on the calling thread, from one consistent view of the engine taken when the call starts.
         * {@code readaheadBytes} (0 = the engine's own automatic readahead) is how much of each table file one read
         * fetches: on a paid-IOPS volume where any I/O up to one unit costs one token, a prefetch of one unit of data
         * should cost about one read per file it touches, not one per 4 KiB block.
         *
         * @return the key + value bytes visited
         */
        long scan(
                byte[] fromInclusive,
                byte[] toExclusive,
                int maxEntries,
                long readaheadBytes,
                BiConsumer<byte[], byte[]> visitor);
    }
}
