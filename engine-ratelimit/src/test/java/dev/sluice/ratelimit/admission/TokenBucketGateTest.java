package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.base.Ticker;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gate with a fake ticker and a sleeper that logs and advances it (the way Guava tests RateLimiter). */
class TokenBucketGateTest {
    final AtomicLong now = new AtomicLong(0);
    final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return now.get();
        }
    };
    final List<Long> sleeps = new ArrayList<>();
    final TokenBucketGate.Sleeper sleeper = n -> {
        sleeps.add(n);
        now.addAndGet(n);
    };
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private TokenBucketGate gate(double rate, AdmissionScope scope, int maxQueued, long maxWaitMs) {
        return new TokenBucketGate(
                "p", rate, scope, maxQueued, TimeUnit.MILLISECONDS.toNanos(maxWaitMs), 0, ticker, sleeper, timer);
    }

    @Test
    void requestsAreSpacedAtTheRateInArrivalOrder() {
        TokenBucketGate g = gate(10, AdmissionScope.ALL, 100, 10_000);
        for (int i = 0; i < 4; i++) {
            g.acquire(RequestKind.WRITE, 100);
        }
        // The first goes at once (one stored token), then one every 100 ms.
        assertThat(sleeps).containsExactly(100_000_000L, 100_000_000L, 100_000_000L);
        assertThat(g.admitted()).isEqualTo(4);
        assertThat(g.queued()).isZero();
    }

    @Test
    void aRequestOfNOperationsTakesNTokensAndGoesWhenItsLastTokenExists() {
        TokenBucketGate g = gate(10, AdmissionScope.ALL, 100, 10_000);
        g.acquire(RequestKind.WRITE, 4000, 4); // tokens at 0, 100, 200, 300 ms
        g.acquire(RequestKind.WRITE, 100); // the next one at 400 ms
        assertThat(sleeps).containsExactly(300_000_000L, 100_000_000L);
        assertThat(g.admitted()).isEqualTo(2);
    }

    @Test
    void aCancelledBatchGivesAllItsTokensBack() {
        TokenBucketGate g = gate(10, AdmissionScope.ALL, 100, 10_000);
        g.acquire(RequestKind.WRITE, 1); // at 0; the next token is due at 100 ms
        CompletableFuture<Void> batch = g.acquireAsync(RequestKind.WRITE, 500, 5); // 100..500 ms
        assertThat(g.queued()).isEqualTo(1);
        batch.cancel(false);
        assertThat(g.queued()).isZero();
        g.acquire(RequestKind.WRITE, 1); // takes the 100-ms slot again, not 600 ms
        assertThat(sleeps).containsExactly(100_000_000L);
    }

    @Test
    void aBatchThatWouldWaitPastTheBoundIsRefusedNamingItsSize() {
        TokenBucketGate g = gate(10, AdmissionScope.ALL, 100, 1_000);
        assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1, 20))
                .isInstanceOf(OverloadedException.class)
                .hasMessageContaining("20 operations")
                .hasMessageContaining("1000 ms");
        assertThat(g.rejected()).isEqualTo(1);
        g.acquire(RequestKind.WRITE, 1, 5); // 5 tokens: 400 ms, inside the bound
        assertThat(sleeps).containsExactly(400_000_000L);
    }

    @Test
    void anIdleBucketStoresAtMostItsBurst() {
        TokenBucketGate g = new TokenBucketGate(
                "p",
                100,
                AdmissionScope.ALL,
                100,
                TimeUnit.SECONDS.toNanos(10),
                TimeUnit.MILLISECONDS.toNanos(50),
                ticker,
                sleeper,
                timer);
        now.addAndGet(TimeUnit.SECONDS.toNanos(10)); // idle long enough to fill any bucket
        for (int i = 0; i < 6; i++) {
            g.acquire(RequestKind.READ, 1); // 5 stored tokens (50 ms at 100/s) + the token due now
        }
        assertThat(sleeps).isEmpty();
        g.acquire(RequestKind.READ, 1);
        g.acquire(RequestKind.READ, 1);
        assertThat(sleeps).containsExactly(10_000_000L, 10_000_000L);
    }

    @Test
    void aRequestThatWouldWaitPastTheBoundIsRefusedAtOnceAndTakesNoToken() {
        TokenBucketGate g = gate(10, AdmissionScope.ALL, 100, 250);
        // Three async reservations: waits 0, 100 ms, 200 ms; the fourth would wait 300 ms > 250 ms.
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fs.add(g.acquireAsync(RequestKind.WRITE, 1));
        }
        assertThat(g.queued()).isEqualTo(2);
        CompletableFuture<Void> refused = g.acquireAsync(RequestKind.WRITE, 1);
        assertThat(refused).isCompletedExceptionally();
        assertThatThrownBy(refused::get)
                .hasCauseInstanceOf(OverloadedException.class)
                .hasMessageContaining("would wait over 250 ms");
        assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1)).isInstanceOf(OverloadedException.class);
        assertThat(g.rejected()).isEqualTo(2);
        assertThat(sleeps).as("refused requests never sleep").isEmpty();
    }

    @Test
    void theWaitingQueueIsBoundedInLength() {
        TokenBucketGate g = gate(1, AdmissionScope.ALL, 3, 1_000_000);
        g.acquireAsync(RequestKind.WRITE, 1); // token now
        for (int i = 0; i < 3; i++) {
            assertThat(g.acquireAsync(RequestKind.WRITE, 1)).isNotDone();
        }
        assertThat(g.queued()).isEqualTo(3);
        assertThat(g.acquireAsync(RequestKind.WRITE, 1)).isCompletedExceptionally();
        assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1))
                .hasMessageContaining("admission queue full (3 waiting");
    }

    @Test
    void writesOnlyScopeLetsReadsThroughWithoutTokens() {
        TokenBucketGate g = gate(1, AdmissionScope.WRITES, 10, 10_000);
        for (int i = 0; i < 100; i++) {
            g.acquire(RequestKind.READ, 1);
            g.acquire(RequestKind.SCAN, 1);
        }
        assertThat(sleeps).isEmpty();
        g.acquire(RequestKind.WRITE, 1);
        g.acquire(RequestKind.WRITE, 1);
        assertThat(sleeps).containsExactly(1_000_000_000L);
    }

    @Test
    void anInfiniteRateAdmitsEverythingAndARateChangeAppliesToLaterRequests() {
        TokenBucketGate g = gate(Double.POSITIVE_INFINITY, AdmissionScope.ALL, 10, 10_000);
        for (int i = 0; i < 1000; i++) {
            g.acquire(RequestKind.WRITE, 1);
        }
        assertThat(sleeps).isEmpty();
        g.setRate(2);
        assertThat(g.rate()).isEqualTo(2);
        g.acquire(RequestKind.WRITE, 1);
        g.acquire(RequestKind.WRITE, 1);
        g.setRate(4);
        g.acquire(RequestKind.WRITE, 1); // reserved at the old rate: 500 ms
        g.acquire(RequestKind.WRITE, 1); // spaced at the new rate: 250 ms
        assertThat(sleeps).containsExactly(500_000_000L, 500_000_000L, 250_000_000L);
        assertThatThrownBy(() -> g.setRate(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void asyncWaitersCompleteInOrderWithoutBlockingTheCaller() throws Exception {
        // The real clock and timer thread, and a sleeper that fails the test: the async path must never wait in the
        // caller's thread (asserted by that, not by how long the calls took).
        List<Thread> sleptIn = new java.util.concurrent.CopyOnWriteArrayList<>();
        TokenBucketGate g = new TokenBucketGate(
                "p",
                20,
                AdmissionScope.ALL,
                100,
                TimeUnit.SECONDS.toNanos(2),
                0,
                Ticker.systemTicker(),
                n -> sleptIn.add(Thread.currentThread()),
                timer);
        List<Integer> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int id = i;
            fs.add(g.acquireAsync(RequestKind.WRITE, 1).thenRun(() -> order.add(id)));
        }
        CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        assertThat(sleptIn).as("threads that waited in the sleeper").isEmpty();
        assertThat(order)
                .containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, 20).boxed().toList());
        assertThat(g.admitted()).isEqualTo(20);
        assertThat(g.queued()).isZero();
    }

    @Test
    void aClosedGateRefusesAndFailsWaitingAsyncRequests() throws Exception {
        TokenBucketGate g = TokenBucketGate.create("p", 5, AdmissionScope.ALL, 100, TimeUnit.SECONDS.toNanos(5), 0);
        g.acquireAsync(RequestKind.WRITE, 1).get();
        CompletableFuture<Void> waiting = g.acquireAsync(RequestKind.WRITE, 1);
        g.close();
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1)).hasMessageContaining("closed");
    }
}
