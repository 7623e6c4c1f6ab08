package dev.sluice.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.core.sensor.IoClass;
import io.micrometer.core.instrument.FunctionCounter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proactive prefetch on real RocksDB and the real priority Env: a hot block is read by the prefetch thread, the Env
 * classifies those reads as PREFETCH, and later reads of keys of that block that were never read are cache hits that
 * cost no USER_GET I/O.
 */
class PrefetchTest {
    @TempDir
    Path dir;

    /** Mixgraph-like key: an 8-byte prefix (the cluster), then the key's number in it. */
    static byte[] key(long prefix, int n) {
        return ByteBuffer.allocate(12).putLong(prefix).putInt(n).array();
    }

    private static double counter(SluiceNode node, String name, String result) {
        var search = node.meterRegistry().find(name);
        if (result != null) {
            search = search.tag("result", result);
        }
        return search.functionCounters().stream()
                .mapToDouble(FunctionCounter::count)
                .sum();
    }

    @Test
    void hotBlocksArePrefetchedThroughThePrefetchClass() throws Exception {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .env("priority")
                .blockCacheBytes(0) // every read of SST data reaches the Env
                .tickPeriod(Duration.ofMillis(100))
                .controls("calcspar-cache")
                .controlOption("calcspar-cache", "paid.iops", "1000000") // plenty of spare tokens: proactive
                .controlOption("calcspar-cache", "period.ms", "100")
                .controlOption("calcspar-cache", "layout.seconds", "0")
                .controlOption("calcspar-cache", "rewarm.seconds", "3600")
                .build();
        try (SluiceNode node = Sluice.open(cfg)) {
            assertThat(node.priorityEnv()).isTrue();
            Partition p = node.defaultPartition();
            byte[] value = new byte[100];
            for (long prefix = 0; prefix < 200; prefix++) {
                for (int n = 0; n < 100; n++) {
                    p.put(key(prefix, n), value, WriteMode.ASYNC);
                }
            }
            p.flush(); // 20,000 keys, ~2.3 MB in SST files: about nine 256 KiB blocks
            long prefetchBefore = node.sample().io().get(IoClass.PREFETCH).ops();

            // keys 0..9 of cluster 50 are read again and again; the other 90 keys of the cluster never are
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        for (int n = 0; n < 10; n++) {
                            p.get(key(50, n));
                        }
                        return counter(node, "sluice.cache.prefetch.bytes", null) > 0;
                    });
            assertThat(node.sample().io().get(IoClass.PREFETCH).ops())
                    .as("the prefetch thread's reads are charged to PREFETCH")
                    .isGreaterThan(prefetchBefore);

            long userGetsBefore = node.sample().io().get(IoClass.USER_GET).ops();
            double hitsBefore = counter(node, "sluice.cache.requests", "hit");
            for (int n = 10; n < 100; n++) {
                assertThat(p.get(key(50, n))).isEqualTo(value);
            }
            assertThat(counter(node, "sluice.cache.requests", "hit") - hitsBefore)
                    .as("the never-read keys of the hot block were prefetched")
                    .isEqualTo(90);
            assertThat(node.sample().io().get(IoClass.USER_GET).ops()).isEqualTo(userGetsBefore);
            assertThat(node.recentEvents())
                    .anySatisfy(e -> assertThat(e.knob()).isEqualTo("default/calcspar_block_layout"))
                    .anySatisfy(e -> assertThat(e.knob()).isEqualTo("*/calcspar_prefetch_budget"));
        }
    }
}
