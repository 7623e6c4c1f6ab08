package dev.sluice.bench.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The read-back's split of the Murmur3 ring: contiguous, covering every token once, in equal parts. */
class TokenRangesTest {
    @Test
    void theRangesCoverTheWholeRingWithoutGapsOrOverlaps() {
        for (int n : new int[] {1, 2, 7, 32}) {
            List<long[]> r = CassandraBench.Load.tokenRanges(n);
            assertThat(r).hasSize(n);
            assertThat(r.get(0)[0]).isEqualTo(Long.MIN_VALUE); // Murmur3 never assigns MIN_VALUE: (MIN, ...] is all
            assertThat(r.get(n - 1)[1]).isEqualTo(Long.MAX_VALUE);
            for (int i = 0; i < n; i++) {
                assertThat(r.get(i)[1]).as("range %d of %d is not empty", i, n).isGreaterThan(r.get(i)[0]);
                if (i > 0) {
                    assertThat(r.get(i)[0])
                            .as("range %d starts where %d ends", i, i - 1)
                            .isEqualTo(r.get(i - 1)[1]);
                }
            }
        }
        List<long[]> two = CassandraBench.Load.tokenRanges(2);
        assertThat(two.get(0)[1]).isBetween(-1L, 0L); // the middle of the ring
    }
}
