package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The prefix-clustered key layout and the clustered distribution of calcspar-mixgraph. */
class ClusteredKeysTest {
    @Test
    void aClustersKeysAreAdjacentAndDistinctAndClustersAreScattered() {
        KeyCodec codec = new KeyCodec(16, 1024);
        Set<String> seen = new HashSet<>();
        byte[] first = codec.key(5 * 1024);
        byte[] last = codec.key(5 * 1024 + 1023);
        for (long i = 0; i < 20 * 1024; i++) {
            assertThat(seen.add(Arrays.toString(codec.key(i)))).isTrue();
        }
        // every key of cluster 5 lies between its first and last key, and no key of another cluster does
        for (long i = 0; i < 20 * 1024; i++) {
            byte[] k = codec.key(i);
            boolean inside = Arrays.compareUnsigned(first, k) <= 0 && Arrays.compareUnsigned(k, last) <= 0;
            assertThat(inside).as("key %d", i).isEqualTo(i / 1024 == 5);
        }
        // clusters are scattered: their first keys, in cluster order, are not in key order
        boolean sorted = true;
        for (long c = 1; c < 20; c++) {
            sorted &= Arrays.compareUnsigned(codec.key((c - 1) * 1024), codec.key(c * 1024)) < 0;
        }
        assertThat(sorted).as("cluster order is hashed").isFalse();
        // the hashed layout is unchanged
        assertThat(new KeyCodec(16, 0).key(123)).isEqualTo(new KeyCodec(16).key(123));
    }

    @Test
    void clusteredPicksZipfianClustersAndStaysInsideTheKeysThatExist() {
        KeyDistribution d = new KeyDistribution(KeyDistribution.Kind.CLUSTERED, 0.99, 0, 0, 100);
        SplittableRandom rnd = new SplittableRandom(7);
        long n = 10_050; // 101 clusters, the last one with 50 keys
        long[] perCluster = new long[101];
        for (int i = 0; i < 200_000; i++) {
            long idx = d.next(n, rnd);
            assertThat(idx).isBetween(0L, n - 1);
            perCluster[(int) (idx / 100)]++;
        }
        assertThat(perCluster[0]).isGreaterThan(5 * perCluster[10]);
        assertThat(perCluster[100]).isPositive();
    }
}
