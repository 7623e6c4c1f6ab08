package dev.sluice.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.spi.ReadCache;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * Which L0/L1 re-warm ranges the prefetcher scans. With random writes every L0 and L1 file spans nearly the whole key
 * space; scanning such a range from its first key fills the cache with the start of the key space, not with the
 * file's data (the first calcspar-mixgraph run spent about 35,000 device reads that way). A range wider than an eighth
 * of the cache is skipped; a narrow one is scanned, with a readahead of one I/O unit. The engine side of a scan
 * (RocksDB, the Env's PREFETCH class) is covered by {@link PrefetchTest}; here the source only records the calls.
 */
class RewarmRangeTest {
    private static final long UNIT = 256 << 10;

    private static byte[] key(long prefix) {
        return ByteBuffer.allocate(8).putLong(prefix).array();
    }

    record Scan(byte[] from, byte[] to, long readahead) {}

    @Test
    void aRangeWiderThanAnEighthOfTheCacheIsSkippedANarrowOneIsScanned() throws Exception {
        // 4 MiB of cache = 16 blocks of 256 KiB: ranges of at most 2 blocks are re-warmed
        CalcsparCache cache = new CalcsparCache(new CalcsparCache.Settings(4L << 20, UNIT, UNIT, 0.5, 60_000, 1));
        assertThat(cache.maxRewarmBlocks()).isEqualTo(2);
        List<Scan> scans = new CopyOnWriteArrayList<>();
        ReadCache view = cache.forPartition("p");
        view.bind(new ReadCache.Source() {
            @Override
            public String partition() {
                return "p";
            }

            @Override
            public byte[] get(byte[] key) {
                return null;
            }

            @Override
            public long scan(
                    byte[] from, byte[] to, int maxEntries, long readaheadBytes, BiConsumer<byte[], byte[]> visitor) {
                scans.add(new Scan(from, to, readaheadBytes));
                visitor.accept(from == null ? new byte[0] : from, new byte[100]);
                return 108;
            }
        });
        try {
            // one 100-MiB file over prefixes 0..39,999: 400 blocks of 100 prefixes each
            cache.setLayout("p", List.of(new HotnessTable.Extent(key(0), key(39_999), 100L << 20)));
            assertThat(cache.hotness("p").blocks()).isGreaterThan(300);
            var wide = new CacheActuator.KeyRangeBytes(key(0), key(39_999)); // an L0 file of random writes
            var narrow = new CacheActuator.KeyRangeBytes(key(20_010), key(20_050)); // inside one block
            cache.rewarm("p", List.of(wide, narrow));
            cache.setPrefetchBudget(100);

            cache.prefetchNow();

            assertThat(scans).hasSize(1);
            assertThat(scans.get(0).from()).isEqualTo(key(20_010));
            assertThat(scans.get(0).readahead()).as("one I/O unit per read").isEqualTo(UNIT);
            assertThat(cache.stats().rewarmSkipped()).isEqualTo(1);
            assertThat(cache.stats().prefetchedBlocks()).isEqualTo(1);
        } finally {
            cache.close();
        }
    }
}
