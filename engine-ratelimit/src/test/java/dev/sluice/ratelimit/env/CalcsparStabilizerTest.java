package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Calcspar §4.1, the IOPS stabilizer: with the {@code calcspar} policy's paid IOPS equal to the device's, I/O that
 * waits for a token never reaches the device on its overdraft path, even when more is asked for than is paid.
 */
class CalcsparStabilizerTest {
    static final long UNIT = 256 << 10;

    @BeforeAll
    static void nativeAvailable() {
        NativeTestSupport.requireNative();
    }

    private static long[] overdraftUnder(Duration foregroundBound) throws Exception {
        double iops = 400;
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, iops, 0, 0, Duration.ofNanos(50_000), 0, UNIT));
            env.setPolicy(IoPolicy.calcspar(iops));
            env.setForegroundWaitBound(foregroundBound);
            DeviceStats before;
            DeviceStats after;
            long overrunsBefore;
            long overrunsAfter;
            try (SyntheticLoad load = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 8).start()) {
                SyntheticLoad.run(Duration.ofMillis(1200));
                before = env.deviceStats();
                overrunsBefore = env.schedulerStats().foregroundOverruns();
                SyntheticLoad.run(Duration.ofMillis(2000));
                after = env.deviceStats();
                overrunsAfter = env.schedulerStats().foregroundOverruns();
            }
            DeviceStats d = after.minus(before);
            return new long[] {d.ops(), d.overdraftOps(), overrunsAfter - overrunsBefore};
        }
    }

    @Test
    void tokensHeldByTheAllocatorKeepTheDeviceOffItsOverdraftPath() throws Exception {
        long[] unbounded = overdraftUnder(Duration.ZERO);
        long[] bounded = overdraftUnder(Duration.ofMillis(100));
        System.out.printf(
                "stabilizer: unbounded wait: %d device ops, %d overdraft, %d overruns;"
                        + " 100-ms foreground bound: %d device ops, %d overdraft, %d overruns%n",
                unbounded[0], unbounded[1], unbounded[2], bounded[0], bounded[1], bounded[2]);
        assertThat(unbounded[1])
                .as("overdraft I/Os with the allocator waiting for tokens")
                .isZero();
        // The default 100-ms foreground bound must not let user I/O skip the allocator's tokens: under the calcspar
        // policy
        // a foreground wait ends at the next second's refill anyway.
        assertThat(bounded[1])
                .as("overdraft I/Os with the default foreground wait bound")
                .isZero();
        assertThat(bounded[0]).as("the device still serves the paid IOPS").isBetween(640L, 880L);
    }
}
