package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
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

    /**
     * Tokens given back (interrupted, cancelled or closed waiters) are reused, never multiplied: over random arrivals
     * where some waiting reservations are given back before they are due, the kept reservations are still FIFO and no
     * window admits more than {@code rate·W + burst + 1}.
     */
    @Property(tries = 300)
    void givingTokensBackKeepsFifoAndTheRateBound(
            @ForAll @DoubleRange(min = 1, max = 50_000) double rate,
            @ForAll @LongRange(min = 0, max = 50_000_000) long burstNanos,
            @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 5_000) Integer> gaps,
            @ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 9) Integer> giveBacks,
            @ForAll @LongRange(min = 1_000_000, max = 1_000_000_000) long window) {
        TokenBucket b = new TokenBucket(rate, burstNanos, 0);
        long now = 0;
        List<Long> kept = new ArrayList<>(); // due instants in arrival order; null = given back
        List<Integer> waiting = new ArrayList<>(); // indexes into kept of reservations not yet due
        for (int i = 0; i < gaps.size(); i++) {
            now += gaps.get(i) * 1000L;
            long t = now;
            waiting.removeIf(k -> kept.get(k) <= t);
            long w = b.reserve(now, Long.MAX_VALUE / 4);
            kept.add(now + w);
            if (w > 0) {
                waiting.add(kept.size() - 1);
            }
            int g = giveBacks.get(i % giveBacks.size());
            if (g < 3 && !waiting.isEmpty()) { // 30 %: a waiting request gives its token back
                int k = waiting.remove(g % waiting.size());
                b.giveBack(kept.get(k), now);
                kept.set(k, null);
            }
        }
        List<Long> t = kept.stream().filter(java.util.Objects::nonNull).toList();
        for (int i = 1; i < t.size(); i++) {
            assertThat(t.get(i)).as("FIFO after give-backs").isGreaterThanOrEqualTo(t.get(i - 1));
        }
        double burstTokens = Math.max(1, rate * burstNanos / 1e9);
        int j = 0;
        for (int i = 0; i < t.size(); i++) {
            while (t.get(i) - t.get(j) > window) {
                j++;
            }
            assertThat((double) (i - j + 1)).isLessThanOrEqualTo(rate * window / 1e9 + burstTokens + 1);
        }
    }

    @Example
    void aTokenGivenBackByTheLastWaiterIsTakenByTheNextArrivalAndAnEarlierOneLeavesAHole() {
        TokenBucket b = new TokenBucket(10, 0, 0);
        assertThat(b.reserve(0, Long.MAX_VALUE)).isZero();
        assertThat(b.reserve(0, Long.MAX_VALUE)).isEqualTo(100_000_000L);
        long third = b.reserve(0, Long.MAX_VALUE);
        assertThat(third).isEqualTo(200_000_000L);
        assertThat(b.giveBack(third, 0)).as("the last one: nextFree moves back").isTrue();
        assertThat(b.reserve(0, Long.MAX_VALUE)).isEqualTo(200_000_000L);
        assertThat(b.giveBack(100_000_000L, 0))
                .as("not the last one: forfeited")
                .isFalse();
        assertThat(b.reserve(0, Long.MAX_VALUE)).isEqualTo(300_000_000L);
        assertThat(b.giveBack(300_000_000L, 300_000_000L))
                .as("already due: nothing to give back")
                .isFalse();
        assertThat(b.reserve(0, Long.MAX_VALUE)).isEqualTo(400_000_000L);
    }
}
