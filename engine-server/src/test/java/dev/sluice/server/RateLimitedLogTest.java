package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {
    @Test
    void oneLinePerIntervalWithTheCountOfTheRest() {
        AtomicLong now = new AtomicLong(1_000);
        RateLimitedLog l = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), now::get);
        assertThat(l.log("first")).isTrue();
        for (int i = 0; i < 100_000; i++) {
            assertThat(l.log("again")).isFalse();
        }
        now.addAndGet(RateLimitedLog.INTERVAL_NANOS - 1);
        assertThat(l.log("still too soon")).isFalse();
        now.addAndGet(1);
        assertThat(l.log("next")).isTrue();
        assertThat(l.log("after it")).isFalse();
    }
}
