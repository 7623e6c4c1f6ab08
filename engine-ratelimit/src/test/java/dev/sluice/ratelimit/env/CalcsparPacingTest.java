package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pacing of the Calcspar time windows ({@link IoPolicy.TimeWindows#pace()}) on the real native scheduler and the
 * emulated device. Four threads of flush writes (tier 0 in Calcspar's map, as in §4.4) ask for far more than the 400
 * paid IOPS while a user read arrives every 20 ms. Refreshed once a second, the flushes take the second's tokens within
 * milliseconds of its start and a user read waits for the next second. Paced (20 ms of burst), a read waits behind at
 * most the flush writes queued before it. The device's overdraft path stays unused in both: the second's total is the
 * paid IOPS either way.
 */
class CalcsparPacingTest {
    private static final long UNIT = 256 << 10;

    @BeforeAll
    static void nativeLibrary() {
        NativeTestSupport.requireNative();
    }

    /** Latencies (ms, sorted) of the user reads, and the device's overdraft I/Os, over 2.5 s after a 1.2-s warm-up. */
    private static Result userReadsBesideAFlushFlood(Duration pace) throws Exception {
        double iops = 400;
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, iops, 0, 0, Duration.ofNanos(50_000), 0, UNIT));
            IoPolicy.TimeWindows c = IoPolicy.calcspar(iops);
            env.setPolicy(new IoPolicy.TimeWindows(c.tiers(), iops, c.minWindowFraction(), Duration.ZERO, pace));
            List<Double> ms = new ArrayList<>();
            DeviceStats before;
            try (SyntheticLoad flush = new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, 4096, 4).start()) {
                SyntheticLoad.run(Duration.ofMillis(1200));
                before = env.deviceStats();
                long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
                while (System.nanoTime() < end) {
                    ms.add(env.syntheticIo(IoClass.USER_GET, FaultRule.Op.READ, 4096, false) / 1e6);
                    Thread.sleep(20);
                }
            }
            DeviceStats d = env.deviceStats().minus(before);
            Collections.sort(ms);
            return new Result(ms, d.ops(), d.overdraftOps());
        }
    }

    record Result(List<Double> readMs, long deviceOps, long overdraftOps) {
        double quantile(double q) {
            return readMs.get(Math.min(readMs.size() - 1, (int) Math.floor(q * readMs.size())));
        }
    }

    @Test
    void pacedTokensLeaveUserReadsNoSecondLongWait() throws Exception {
        Result perSecond = userReadsBesideAFlushFlood(Duration.ZERO);
        Result paced = userReadsBesideAFlushFlood(Duration.ofMillis(20));
        System.out.printf(
                "calcspar pacing: once a second: %d reads, p50 %.1f ms, max %.1f ms, %d device ops, %d overdraft;"
                        + " paced 20 ms: %d reads, p50 %.1f ms, max %.1f ms, %d device ops, %d overdraft%n",
                perSecond.readMs().size(),
                perSecond.quantile(0.5),
                perSecond.quantile(1),
                perSecond.deviceOps(),
                perSecond.overdraftOps(),
                paced.readMs().size(),
                paced.quantile(0.5),
                paced.quantile(1),
                paced.deviceOps(),
                paced.overdraftOps());
        assertThat(perSecond.overdraftOps()).as("once a second: overdraft I/Os").isZero();
        assertThat(paced.overdraftOps()).as("paced: overdraft I/Os").isZero();
        // paced, the device still serves the paid rate: about 1,000 I/Os in the 2.5 s (once a second the window
        // runs on until the last read returns, so its count is not comparable)
        assertThat(paced.deviceOps()).isBetween(700L, 1300L);
        assertThat(perSecond.quantile(0.5))
                .as("once a second, a read waits for the next refill")
                .isGreaterThan(150);
        assertThat(paced.quantile(1))
                .as("paced, a read waits behind the few flush writes queued before it")
                .isLessThan(100);
    }
}
