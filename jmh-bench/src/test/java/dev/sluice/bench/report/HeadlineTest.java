package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.runner.Results;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's first lines: the stack of record against the baseline and the other stacks. */
class HeadlineTest {
    static Results.Stack stack(String name, double mean, double tail, long p99Us) {
        Results.Metrics m = new Results.Metrics(
                60,
                (long) (mean * 60),
                mean,
                tail,
                tail,
                tail,
                mean,
                null,
                null,
                0,
                0,
                null,
                0,
                0,
                null,
                null,
                -1,
                Map.of("all", new LatencyStats(100, 500, 500, p99Us, p99Us, p99Us)),
                null,
                null,
                null,
                null,
                null,
                null,
                null);
        return new Results.Stack(
                name, "", false, "p", List.of(), Map.of(), Map.of(), null, null, List.of(), m, Map.of(), Map.of(), 0,
                List.of());
    }

    @Test
    void theSluiceStackIsComparedWithStockAndWithEveryOtherStack() {
        List<String> h = Summary.headline(List.of(
                stack("rocksdb", 9000, 1200, 12_000),
                stack("rocksdb-autotuned", 10_000, 4000, 9_000),
                stack("sluice", 9900, 4800, 6_000)));
        assertThat(h)
                .containsExactly(
                        "sluice vs rocksdb (baseline): P99 tail throughput 4.00× (4,800 vs 1,200 ops/s), p99 latency 0.50×,"
                                + " mean throughput 1.10×",
                        "sluice vs rocksdb-autotuned: P99 tail throughput 1.20× (4,800 vs 4,000 ops/s), p99 latency 0.67×,"
                                + " mean throughput 0.99×");
    }

    @Test
    void withoutASluiceStackTheCruiseDbStackIsTheStackOfRecordAndWithoutEitherThereIsNoHeadline() {
        assertThat(Summary.headline(
                        List.of(stack("rocksdb", 9000, 1200, 12_000), stack("cruisedb", 9000, 3600, 6_000))))
                .singleElement()
                .asString()
                .startsWith("cruisedb vs rocksdb (baseline): P99 tail throughput 3.00×");
        assertThat(Summary.headline(List.of(stack("rocksdb", 9000, 1200, 12_000), stack("other", 1, 1, 1))))
                .isEmpty();
    }
}
