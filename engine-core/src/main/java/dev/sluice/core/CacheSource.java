package dev.sluice.core;

import dev.sluice.core.spi.ReadCache;
import java.util.function.BiConsumer;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * The engine reader a {@link ReadCache} prefetches with (a RocksDB iterator over one key range) and re-reads written
 * keys with (a point read), bypassing admission and the cache, holding the partition's lifecycle read lock while it runs (so a close or {@code resume()} waits for
 * it, and a scan after close throws {@link IllegalStateException}). The I/O class of its reads is decided by the
 * calling thread (the priority Env classifies reads from {@code sluice-prefetch*} threads as PREFETCH).
 */
final class CacheSource implements ReadCache.Source {
    private final RocksPartition partition;

    CacheSource(RocksPartition partition) {
        this.partition = partition;
    }

    @Override
    public String partition() {
        return partition.name();
    }

    @Override
    public byte[] get(byte[] key) {
        partition.enter();
        try {
            return partition.db().get(key);
        } catch (RocksDBException e) {
            throw new SluiceException(
                    "partition '" + partition.name() + "': cache re-read failed: " + RocksPartition.describe(e), e);
        } finally {
            partition.exit();
        }
    }

    @Override
    public long scan(
            byte[] fromInclusive,
            byte[] toExclusive,
            int maxEntries,
            long readaheadBytes,
            BiConsumer<byte[], byte[]> visitor) {
        if (readaheadBytes < 0) {
            throw new IllegalArgumentException("readaheadBytes must be >= 0, got " + readaheadBytes);
        }
        partition.enter();
        try (ReadOptions ro = new ReadOptions().setFillCache(false).setReadaheadSize(readaheadBytes);
                Slice upper = toExclusive == null ? null : new Slice(toExclusive)) {
            if (upper != null) {
                ro.setIterateUpperBound(upper);
            }
            long bytes = 0;
            try (RocksIterator it = partition.db().newIterator(ro)) {
                if (fromInclusive == null) {
                    it.seekToFirst();
                } else {
                    it.seek(fromInclusive);
                }
                for (int n = 0; n < maxEntries && it.isValid(); n++, it.next()) {
                    byte[] k = it.key();
                    byte[] v = it.value();
                    bytes += k.length + v.length;
                    visitor.accept(k, v);
                }
                it.status();
            } catch (RocksDBException e) {
                throw new SluiceException(
                        "partition '" + partition.name() + "': prefetch scan failed: " + RocksPartition.describe(e), e);
            }
            return bytes;
        } finally {
            partition.exit();
        }
    }
}
