package dev.sluice.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.spi.ReadCache;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * Block fills race with writes on a real RocksDB: the prefetch thread scans the same key ranges again and again (each
 * install replaces the range before it, and large overlays are folded into new arrays) while writers put and delete
 * keys of those ranges and readers read them through the cache, following {@link ReadCache}'s protocol as {@code
 * RocksPartition} does. Every read is checked against the same version model as {@link CacheCoherenceTest}: a read
 * that started after version lo of a key was acknowledged must not return an older one.
 */
class RangeFillCoherenceTest {
    static final int KEYS = 400;
    static final int WRITERS = 2;
    static final int READERS = 3;

    @TempDir
    Path dir;

    static byte[] key(int k) {
        return String.format("key:%05d", k).getBytes(UTF_8);
    }

    /** The engine reader of the cache, over a plain RocksDB (what CacheSource does for a partition). */
    record DbSource(RocksDB db) implements ReadCache.Source {
        @Override
        public String partition() {
            return "p";
        }

        @Override
        public byte[] get(byte[] key) {
            try {
                return db.get(key);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public long scan(byte[] from, byte[] to, int maxEntries, long readahead, BiConsumer<byte[], byte[]> visitor) {
            try (ReadOptions ro = new ReadOptions();
                    Slice upper = to == null ? null : new Slice(to)) {
                if (upper != null) {
                    ro.setIterateUpperBound(upper);
                }
                long bytes = 0;
                try (RocksIterator it = db.newIterator(ro)) {
                    if (from == null) {
                        it.seekToFirst();
                    } else {
                        it.seek(from);
                    }
                    for (int n = 0; n < maxEntries && it.isValid(); n++, it.next()) {
                        byte[] k = it.key(), v = it.value();
                        bytes += k.length + v.length;
                        visitor.accept(k, v);
                    }
                }
                return bytes;
            }
        }
    }

    @Test
    void blockFillsThatRaceWritesNeverServeAStaleValue() throws Exception {
        AtomicLongArray issued = new AtomicLongArray(KEYS);
        AtomicLongArray acked = new AtomicLongArray(KEYS);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        // 1 MiB of space, 16 KiB blocks: the hotness table's single block covers the whole key space, so besides the
        // narrow re-warm ranges the prefetcher also fills the whole space as one block, replacing them
        CalcsparCache cache =
                new CalcsparCache(new CalcsparCache.Settings(1L << 20, 16 << 10, 16 << 10, 0.5, 60_000, 1));
        try (Options o = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(o, dir.toString())) {
            for (int k = 0; k < KEYS; k++) { // version 1 of every key, acknowledged
                if (!CacheCoherenceTest.isDelete(k, 1)) {
                    db.put(key(k), CacheCoherenceTest.value(k, 1));
                }
                issued.set(k, 1);
                acked.set(k, 1);
            }
            ReadCache view = cache.forPartition("p");
            view.bind(new DbSource(db));
            cache.setPrefetchBudget(1e6);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                threads.add(new Thread(
                        () -> {
                            Random rnd = new Random(id);
                            try {
                                for (int op = 0; op < 20_000; op++) {
                                    int k = id + WRITERS * rnd.nextInt(KEYS / WRITERS);
                                    long x = issued.incrementAndGet(k);
                                    if (CacheCoherenceTest.isDelete(k, x)) {
                                        db.delete(key(k));
                                    } else {
                                        db.put(key(k), CacheCoherenceTest.value(k, x));
                                    }
                                    view.invalidate(key(k)); // after the engine applied it, before the ack
                                    acked.set(k, x);
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        },
                        "writer-" + w));
            }
            for (int r = 0; r < READERS; r++) {
                int id = r;
                threads.add(new Thread(
                        () -> {
                            Random rnd = new Random(100 + id);
                            try {
                                while (running.get()) {
                                    int k = rnd.nextInt(KEYS);
                                    long lo = acked.get(k);
                                    ReadCache.Cached hit = view.lookup(key(k));
                                    byte[] v;
                                    if (hit != null) {
                                        v = hit.value();
                                    } else {
                                        long stamp = view.stamp();
                                        v = db.get(key(k));
                                        view.fill(key(k), v, stamp);
                                    }
                                    String bad = CacheCoherenceTest.check(k, v, lo, issued.get(k));
                                    if (bad != null) {
                                        violations.add((hit != null ? "hit " : "miss ") + bad);
                                    }
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        },
                        "reader-" + r));
            }
            threads.forEach(Thread::start);
            int fills = 0;
            Random rnd = new Random(7);
            while (threads.subList(0, WRITERS).stream().anyMatch(Thread::isAlive)) {
                int a = rnd.nextInt(KEYS - 40);
                cache.rewarm("p", List.of(new CacheActuator.KeyRangeBytes(key(a), key(a + 40))));
                cache.prefetchNow();
                fills++;
            }
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(errors).isEmpty();
            assertThat(violations).as("stale or impossible reads").isEmpty();
            for (int k = 0; k < KEYS; k++) {
                ReadCache.Cached hit = view.lookup(key(k));
                byte[] v = hit != null ? hit.value() : db.get(key(k));
                assertThat(CacheCoherenceTest.check(k, v, acked.get(k), acked.get(k)))
                        .as("final read of key %d", k)
                        .isNull();
            }
            CacheStats stats = cache.stats();
            assertThat(fills).isGreaterThan(50);
            assertThat(stats.prefetchedBlocks()).as("block fills ran").isGreaterThan(50);
            assertThat(stats.hits()).as("the cache answered reads").isGreaterThan(10_000);
            view.close();
        } finally {
            cache.close();
        }
    }
}
