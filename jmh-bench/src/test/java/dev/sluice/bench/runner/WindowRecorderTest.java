package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.workload.OpKind;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Requests count in the 1-s window their completion falls in, however late the window loop takes it. */
class WindowRecorderTest {
    private static final long S = 1_000_000_000L;
    private static final long T0 = 5 * S;

    private final AtomicLong now = new AtomicLong(T0);
    private final WindowRecorder r = new WindowRecorder(new WriteGaps(), T0, now::get);

    private void completeAt(long nanos) {
        now.set(nanos);
        r.completed(OpKind.READ, 1_000);
    }

    private static long count(WindowRecorder.Interval iv) {
        return iv.perKind().values().stream().mapToLong(h -> h.getTotalCount()).sum();
    }

    /**
     * CLI probe (2026-11-28): an open-loop step 0 → 50 requests/s counted 8 requests in the "0" second, because the
     * loop woke 160 ms late and took what had completed meanwhile. Fails on the swap-at-wake-up recorder (2, 1, 0).
     */
    @Test
    void aLoopThatTakesAWindowLateDoesNotMoveTheNextWindowsRequestsIntoIt() {
        completeAt(T0 + S / 2); // window 0
        completeAt(T0 + S + S / 10); // window 1, completed before the loop took window 0 (160 ms late, say)
        completeAt(T0 + S + S / 6);
        now.set(T0 + S + S / 5);
        assertThat(count(r.take())).isEqualTo(1);
        now.set(T0 + 2 * S);
        assertThat(count(r.take())).isEqualTo(2);
        assertThat(count(r.take())).isZero();
    }

    @Test
    void theLoopMayBeUpToThreeWindowsBehind() {
        for (int w = 0; w < WindowRecorder.RING; w++) {
            for (int i = 0; i <= w; i++) {
                completeAt(T0 + w * S + i);
            }
        }
        for (int w = 0; w < WindowRecorder.RING; w++) {
            assertThat(count(r.take())).as("window %d", w).isEqualTo(w + 1);
        }
    }

    @Test
    void stragglersAndRequestsBeyondTheRingGoToTheNearestWindowStillOpen() {
        completeAt(T0 - S); // before t0 (none are, in a run): window 0
        completeAt(T0 + 10 * S); // the loop is 10 s behind: the newest window it can tell apart (3)
        r.rejected(OpKind.READ);
        assertThat(count(r.take())).isEqualTo(1);
        completeAt(T0 + S / 2); // window 0 was taken already: counted in window 1, the oldest open
        now.set(T0 + 2 * S);
        r.failed(OpKind.UPDATE, new RuntimeException("test: one failure"));
        WindowRecorder.Interval w1 = r.take();
        assertThat(count(w1)).isEqualTo(1);
        assertThat(w1.rejected()).isZero();
        WindowRecorder.Interval w2 = r.take();
        assertThat(count(w2)).isZero();
        assertThat(w2.errors()).isEqualTo(1);
        assertThat(count(r.take())).isEqualTo(1);
    }
}
