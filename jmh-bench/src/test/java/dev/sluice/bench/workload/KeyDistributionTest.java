package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyDistributionTest {
    private static long[] histogram(KeyDistribution d, long n, int samples) {
        long[] h = new long[(int) n];
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < samples; i++) {
            long k = d.next(n, r);
            assertThat(k).isBetween(0L, n - 1);
            h[(int) k]++;
        }
        return h;
    }

    @Test
    void zipfianFollowsThePowerLaw() {
        long[] h = histogram(new KeyDistribution(KeyDistribution.Kind.ZIPFIAN, 0.99, 0, 0), 1000, 400_000);
        // P(rank r) ∝ 1/(r+1)^0.99: rank 0 about twice rank 1 and about ten times rank 9.
        assertThat((double) h[0] / h[1]).isBetween(1.8, 2.2);
        assertThat((double) h[0] / h[9]).isBetween(8.0, 12.0);
        assertThat(h[0]).isGreaterThan(h[500] * 100);
    }

    @Test
    void latestFavoursTheNewestKeys() {
        long[] h = histogram(new KeyDistribution(KeyDistribution.Kind.LATEST, 0.99, 0, 0), 1000, 100_000);
        assertThat(h[999]).isGreaterThan(h[998]).isGreaterThan(h[0] * 50);
    }

    @Test
    void hotspotSendsItsShareToTheHotKeys() {
        long[] h = histogram(new KeyDistribution(KeyDistribution.Kind.HOTSPOT, 0.99, 0.1, 0.9), 1000, 200_000);
        long hot = 0;
        for (int i = 0; i < 100; i++) {
            hot += h[i];
        }
        assertThat(hot / 200_000.0).isBetween(0.88, 0.92);
    }

    @Test
    void uniformCoversTheKeySpace() {
        long[] h = histogram(KeyDistribution.uniform(), 100, 100_000);
        for (long c : h) {
            assertThat(c).isBetween(800L, 1200L);
        }
    }

    @Test
    void keysAreUniqueFixedSizeAndScattered() {
        KeyCodec c = new KeyCodec(16);
        Set<String> seen = new HashSet<>();
        int ascending = 0;
        byte[] prev = null;
        for (long i = 0; i < 100_000; i++) {
            byte[] k = c.key(i);
            assertThat(k).hasSize(16);
            assertThat(seen.add(java.util.HexFormat.of().formatHex(k))).isTrue();
            if (prev != null && java.util.Arrays.compareUnsigned(prev, k) < 0) {
                ascending++;
            }
            prev = k;
        }
        // Consecutive indices are in random key order (about half ascending), not appends.
        assertThat(ascending).isBetween(45_000, 55_000);
    }
}
