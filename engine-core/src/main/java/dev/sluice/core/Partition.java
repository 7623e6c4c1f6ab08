package dev.sluice.core;

import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.quota.QuotaStats;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.PartitionHealth;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One tenant's key space: its own RocksDB instance with its own WAL. Keys and values are byte arrays; keys are ordered
 * bytewise (unsigned). Limits: keys 0 (the empty key) to {@code limits.max.key.bytes} bytes, values 0 to {@code limits.max.value.bytes};
 * null or oversized arguments throw {@link IllegalArgumentException} naming the argument and the limit, and nothing is
 * written.
 *
 * <p>Every request passes the partition's admission gate first (when a controller installed one); a refused request
 * throws {@link OverloadedException} (or {@link QuotaExceededException}), and the async variants complete exceptionally
 * with it instead. Async variants never block the calling thread: the request waits for admission without a thread and
 * then runs on the node's I/O pool.
 *
 * <p>Async variants copy the caller's arrays at the call, so a caller may reuse its buffers as soon as the call returns.
 *
 * <p>Thread-safety: all methods may be called concurrently from any number of threads.
 */
public interface Partition {
    String name();

    /** The value, or {@code null} when the key is absent. */
    byte[] get(byte[] key);

    /** Values in the order of {@code keys}; {@code null} for absent keys. One admission for the whole call. */
    List<byte[]> multiGet(List<byte[]> keys);

    default void put(byte[] key, byte[] value) {
        put(key, value, WriteMode.DEFAULT);
    }

    void put(byte[] key, byte[] value, WriteMode mode);

    default void delete(byte[] key) {
        delete(key, WriteMode.DEFAULT);
    }

    void delete(byte[] key, WriteMode mode);

    default void write(Batch batch) {
        write(batch, WriteMode.DEFAULT);
    }

    /** Applies every element of the batch atomically. An empty batch is a no-op. */
    void write(Batch batch, WriteMode mode);

    /** A cursor over {@code range}; close it. */
    ScanIterator scan(KeyRange range);

    /** At most {@code limit} entries of {@code range}, materialized. */
    List<KeyValue> scan(KeyRange range, int limit);

    /**
     * The keys of at most {@code limit} entries of {@code range}, in order, without their values: no value is copied out
     * of RocksDB into the heap. The scan still reads the values' blocks, so it is charged (quota, read statistics) like
     * {@link #scan(KeyRange, int)}: by key and value bytes. For listings of keys (the server's SCAN) over large values.
     */
    List<byte[]> scanKeys(KeyRange range, int limit);

    /** Flushes the memtables to SST files and waits for it. */
    void flush();

    CompletableFuture<byte[]> getAsync(byte[] key);

    CompletableFuture<List<byte[]>> multiGetAsync(List<byte[]> keys);

    CompletableFuture<Void> putAsync(byte[] key, byte[] value, WriteMode mode);

    CompletableFuture<Void> deleteAsync(byte[] key, WriteMode mode);

    CompletableFuture<Void> writeAsync(Batch batch, WriteMode mode);

    CompletableFuture<List<KeyValue>> scanAsync(KeyRange range, int limit);

    /** {@link #scanKeys} on the node's I/O pool, admitted like {@link #scanAsync}. */
    CompletableFuture<List<byte[]>> scanKeysAsync(KeyRange range, int limit);

    /**
     * The partition's RCU/WCU quota ({@code partition.<name>.*}); {@link PartitionQuota#UNLIMITED} when none is set.
     * Every request is charged by its size: a write {@code ceil(key+value bytes / 1 KiB)} WCUs, a batch by its total; a
     * get or multiGet {@code ceil(bytes returned / 4 KiB)} RCUs (at least one), a scan by the bytes it returned.
     */
    PartitionQuota quota();

    /** Changes the quota on the live partition, from the next request on (units already owed are kept). */
    void setQuota(PartitionQuota quota);

    /** Quota meters since the partition opened: units served, requests throttled and refused. */
    QuotaStats quotaStats();

    /** The latest snapshot the control plane took of this partition (sampled now if none was taken yet). */
    LsmSnapshot snapshot();

    /**
     * The partition's health now: the background error RocksDB reported (a failed flush, compaction or WAL write) and
     * not yet recovered from, whether it stopped writes, whether {@link #resume()} can clear it and whether RocksDB is
     * retrying on its own. While writes are stopped every write fails at once with {@link SluiceException} naming the
     * error (before admission); reads work.
     */
    PartitionHealth health();

    /**
     * Clears a background error once its cause is fixed: reopens the partition's RocksDB instance (replaying its WAL,
     * so every acknowledged write is kept) after the requests running now finish; open scans are closed (using one
     * afterwards throws {@link IllegalStateException}). A no-op when healthy. Throws {@link SluiceException} when the
     * reopen fails (the partition then refuses requests until a later {@code resume()} succeeds).
     */
    PartitionHealth resume();
}
