package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class QuotaBucketTest {
    static final long MS = 1_000_000, S = 1_000 * MS;

    @Test
    void idleTenantSpendsItsBurstThenWaitsOneIntervalPerUnit() {
        QuotaBucket b = new QuotaBucket(10, S, 0); // 10 units/s, 1 s of burst
        assertThat(b.reserve(10, 0, 0)).isZero(); // the whole burst, when idle, goes at once
        assertThat(b.reserve(1, 0, 10 * S)).isEqualTo(100 * MS); // tat = 1.1 s: it waits until tat - burst
        assertThat(b.reserve(1, 0, 10 * S)).isEqualTo(200 * MS);
    }

    /** A request larger than the burst waits for its units beyond it; it is not let through at once as debt. */
    @Test
    void aRequestLargerThanTheBurstWaitsForTheExcess() {
        QuotaBucket b = new QuotaBucket(10, S, 0);
        assertThat(b.reserve(20, 0, 0)).isEqualTo(QuotaBucket.REFUSED); // may not wait: refused, nothing taken
        assertThat(b.owedUnits(0)).isZero();
        assertThat(b.waitNanos(20, 0)).isEqualTo(S);
        // what can ever pass: the burst (refusing), or the burst plus the wait at the rate (throttling)
        assertThat(PartitionQuota.of(0, 10).refusing().largestRequest(10)).isEqualTo(10.0);
        assertThat(PartitionQuota.of(0, 10)
                        .throttling(java.time.Duration.ofSeconds(2))
                        .largestRequest(10))
                .isEqualTo(30.0);
        assertThat(b.reserve(20, 0, 10 * S)).isEqualTo(S); // 10 units beyond the burst: 1 s
        assertThat(b.reserve(1, 0, 10 * S)).isEqualTo(S + 100 * MS);
    }

    /** A huge request on a tiny quota saturates the clock instead of overflowing into an instant admission. */
    @Test
    void aHugeRequestOnATinyQuotaIsRefusedNotWrappedAround() {
        QuotaBucket b = new QuotaBucket(0.001, S, -5 * S); // nanoTime may be negative
        assertThat(b.reserve(Long.MAX_VALUE / 2, -5 * S, 3_600 * S)).isEqualTo(QuotaBucket.REFUSED);
        assertThat(b.waitNanos(Long.MAX_VALUE / 2, -5 * S)).isEqualTo(Long.MAX_VALUE);
        assertThat(b.reserve(1, -5 * S, 3_600 * S)).isEqualTo(999 * S); // one unit = 1,000 s: nothing was taken before
    }

    @Test
    void aWaitAboveTheBoundIsRefusedAndTakesNothing() {
        QuotaBucket b = new QuotaBucket(10, S, 0);
        b.reserve(30, 0, Long.MAX_VALUE); // tat = 3 s
        assertThat(b.reserve(5, 0, S)).isEqualTo(QuotaBucket.REFUSED); // would wait 2.5 s
        assertThat(b.owedUnits(0)).isEqualTo(30.0);
        assertThat(b.reserve(5, 2 * S, S)).isEqualTo(500 * MS); // later it waits 0.5 s: the refused 5 were not taken
    }

    @Test
    void chargedDebtDelaysTheNextRequest() {
        QuotaBucket b = new QuotaBucket(100, 100 * MS, 0); // burst = 10 units
        assertThat(b.reserve(1, 0, 0)).isZero();
        b.charge(19, 0); // a read that returned 80 KiB: 20 units in all
        assertThat(b.reserve(1, 0, S)).isEqualTo(110 * MS); // tat 210 ms - burst 100 ms
    }

    @Test
    void rateChangeKeepsWhatIsOwedAndRespacesIt() {
        QuotaBucket b = new QuotaBucket(10, S, 0);
        b.reserve(30, 0, Long.MAX_VALUE); // owes 30 units = 3 s at 10/s
        b.setRate(30, 0);
        assertThat(b.owedUnits(0)).isCloseTo(30.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(b.reserve(1, 0, 10 * S)).isEqualTo(33_333_334); // 31 units at 30/s: 1/30 s beyond the burst
        b.setRate(0, 0); // unlimited
        assertThat(b.reserve(1_000_000, 0, 0)).isZero();
        b.setRate(10, 0); // limited again, from a clean slate
        assertThat(b.owedUnits(0)).isZero();
    }

    /**
     * Whatever the request sizes and arrival times, the units admitted to start within [0, W] are at most rate·(W +
     * burst) (the GCRA bound the class doc states; until requests paid before they ran, plus one request).
     */
    @Property(tries = 300)
    void admittedUnitsStayWithinRateTimesWindowPlusBurst(
            @ForAll @Size(min = 1, max = 200) java.util.List<@IntRange(min = 1, max = 50) Integer> sizes,
            @ForAll @IntRange(min = 0, max = 50) int gapMs,
            @ForAll @IntRange(min = 1, max = 1000) int rate) {
        long burst = 500 * MS;
        QuotaBucket b = new QuotaBucket(rate, burst, 0);
        long now = 0, lastStart = 0, admitted = 0;
        for (int size : sizes) {
            long wait = b.reserve(size, now, Long.MAX_VALUE);
            assertThat(wait).isNotNegative();
            lastStart = Math.max(lastStart, now + wait);
            admitted += size;
            now += gapMs * MS;
        }
        double bound = rate * (lastStart + burst) / 1e9 + 1e-6 * admitted;
        assertThat((double) admitted).isLessThanOrEqualTo(bound + 1e-6);
    }
}
