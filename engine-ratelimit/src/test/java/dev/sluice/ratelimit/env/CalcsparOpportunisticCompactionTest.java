package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Calcspar §4.4 on the allocator: compactions take only the tokens user I/O leaves, and among compactions the upper
 * levels (L1–L2, the medium queue) get the spare tokens before the deeper ones (the low queue). Counts, not rates: the
 * shares are compared over the same two seconds.
 */
class CalcsparOpportunisticCompactionTest {
    @BeforeAll
    static void nativeAvailable() {
        NativeTestSupport.requireNative();
    }

    @Test
    void userIoFirstThenUpperLevelCompactionThenDeepCompaction() throws Exception {
        double paid = 500;
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setPolicy(IoPolicy.calcspar(paid));
            env.setClassLimit(IoClass.USER_GET, 250, 0); // user reads ask for half of the paid tokens
            IoDetail before;
            IoDetail after;
            long t0;
            long t1;
            try (SyntheticLoad gets = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad high =
                            new SyntheticLoad(env, IoClass.COMPACTION_HIGH, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad deep =
                            new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, 2).start()) {
                SyntheticLoad.run(Duration.ofMillis(1200)); // one full second of history for the windows
                before = env.ioDetail();
                t0 = System.nanoTime();
                SyntheticLoad.run(Duration.ofMillis(2000));
                after = env.ioDetail();
                t1 = System.nanoTime();
            }
            double secs = (t1 - t0) / 1e9;
            IoDetail d = after.minus(before);
            long g = d.get(IoClass.USER_GET).ops();
            long h = d.get(IoClass.COMPACTION_HIGH).ops();
            long deepOps = d.get(IoClass.COMPACTION_DEEP).ops();
            System.out.printf("opportunistic: user %d, L1-L2 %d, deep %d in %.2f s%n", g, h, deepOps, secs);
            assertThat(g / secs).as("user reads get what they ask for").isGreaterThan(0.8 * 250);
            assertThat(g + h + deepOps).as("no more than the paid tokens").isLessThanOrEqualTo((long)
                    (paid * Math.ceil(secs + 0.01)));
            assertThat(h).as("L1-L2 compaction uses spare tokens").isPositive();
            assertThat(h).as("L1-L2 compaction before deeper levels").isGreaterThan(deepOps);
        }
    }
}
