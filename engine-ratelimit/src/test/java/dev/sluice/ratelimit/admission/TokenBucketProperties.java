package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** Properties of the reservation bucket over random arrival sequences (fairness and bounds). */
class TokenBucketProperties {

    record Run(List<Long> admitAt, int refused, long maxWait) {}

    private static Run run(double rate, long burstNanos, long maxWaitNanos, List<Integer> gapsMicros) {
        TokenBucket b = new TokenBucket(rate, burstNanos, 0);
        long now = 0;
        List<Long> admit = new ArrayList<>();
        int refused = 0;
        long maxWait = 0;
        for (int gap : gapsMicros) {
            now += gap * 1000L;
            long w = b.reserve(now, maxWaitNanos);
            if (w == TokenBucket.REFUSED) {
                refused++;
            } else {
                admit.add(now + w);
                maxWait = Math.max(maxWait, w);
            }
        }
        return new Run(admit, refused, maxWait);
    }

    @Property(tries = 300)
    void admissionIsFifoAndNoWaitExceedsTheBound(
            @ForAll @DoubleRange(min = 1, max = 100_000) double rate,
            @ForAll @LongRange(min = 0, max = 50_000_000) long burstNanos,
            @ForAll @LongRange(min = 0, max = 2_000_000_000) long maxWaitNanos,
            @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 20_000) Integer> gaps) {
        Run r = run(rate, burstNanos, maxWaitNanos, gaps);
        for (int i = 1; i < r.admitAt().size(); i++) {
            assertThat(r.admitAt().get(i))
                    .as("FIFO: admitted no earlier than the request before")
                    .isGreaterThanOrEqualTo(r.admitAt().get(i - 1));
        }
        assertThat(r.maxWait()).isLessThanOrEqualTo(maxWaitNanos);
        assertThat(r.admitAt().size() + r.refused()).isEqualTo(gaps.size());
    }

    @Property(tries = 300)
    void noWindowAdmitsMoreThanRateTimesLengthPlusBurst(
            @ForAll @DoubleRange(min = 1, max = 50_000) double rate,
            @ForAll @LongRange(min = 0, max = 50_000_000) long burstNanos,
            @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 5_000) Integer> gaps,
            @ForAll @LongRange(min = 1_000_000, max = 1_000_000_000) long window) {
        Run r = run(rate, burstNanos, Long.MAX_VALUE / 4, gaps);
        double burstTokens = Math.max(1, rate * burstNanos / 1e9);
        List<Long> t = r.admitAt();
        int j = 0;
        for (int i = 0; i < t.size(); i++) {
            while (t.get(i) - t.get(j) > window) {
                j++;
            }
            int inWindow = i - j + 1;
            assertThat((double) inWindow).isLessThanOrEqualTo(rate * window / 1e9 + burstTokens + 1);
        }
    }

    @Property(tries = 200)
    void underOverloadTheQueueIsBoundedByRateTimesMaxWait(
            @ForAll @DoubleRange(min = 10, max = 10_000) double rate,
            @ForAll @LongRange(min = 1_000_000, max = 500_000_000) long maxWaitNanos,
            @ForAll @IntRange(min = 100, max = 3000) int burstOfRequests) {
        TokenBucket b = new TokenBucket(rate, 0, 0);
        int admitted = 0;
        for (int i = 0; i < burstOfRequests; i++) {
            if (b.reserve(0, maxWaitNanos) != TokenBucket.REFUSED) {
                admitted++;
            }
        }
        // Everyone arrives at t=0: at most rate·maxWait + 1 may hold a reservation.
        assertThat((double) admitted).isLessThanOrEqualTo(rate * maxWaitNanos / 1e9 + 2);
    }
}
