package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.common.base.Ticker;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import dev.sluice.core.SluiceException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What happens to a request while it waits in the gate: an interrupt, a cancelled future, a close, and many callers
 * racing for the last places in the queue. The tests that need a thread to really park use the production sleeper and
 * ticker with waits of minutes, so "promptly" means "long before the wait would have ended" — never a timing band.
 */
class TokenBucketGateWaitersTest {
    /** Longer than any of these tests may take: a waiter released only when its slot comes is a failure. */
    static final long LONG_WAIT_SECONDS = 600;

    static final Duration PROMPTLY = Duration.ofSeconds(30);

    final AtomicLong now = new AtomicLong(0);
    final Ticker fakeTicker = new Ticker() {
        @Override
        public long read() {
            return now.get();
        }
    };
    final List<Long> sleeps = new ArrayList<>();
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final List<Thread> threads = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        timer.shutdownNow();
        for (Thread t : threads) {
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** One token now, then one every {@code LONG_WAIT_SECONDS}: the second request waits that long. */
    private static TokenBucketGate slowRealGate(int maxQueued) {
        return TokenBucketGate.create(
                "p",
                1.0 / LONG_WAIT_SECONDS,
                AdmissionScope.ALL,
                maxQueued,
                TimeUnit.SECONDS.toNanos(100 * LONG_WAIT_SECONDS),
                0);
    }

    private Thread start(Runnable r) {
        Thread t = new Thread(r, "waiter-" + threads.size());
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    // --- interrupts ---------------------------------------------------------------------------------------------

    @Test
    void anInterruptedSyncWaiterFailsPromptlyWithItsInterruptFlagRestored() throws Exception {
        TokenBucketGate g = slowRealGate(10);
        g.acquire(RequestKind.WRITE, 1); // takes the token due now
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread t = start(() -> {
            try {
                g.acquire(RequestKind.WRITE, 1);
            } catch (Throwable e) {
                thrown.set(e);
            }
            flagAfter.set(Thread.currentThread().isInterrupted());
        });
        await().atMost(PROMPTLY).until(() -> g.queued() == 1);
        t.interrupt();
        t.join(PROMPTLY.toMillis());

        assertThat(t.isAlive())
                .as("the interrupted waiter is still parked (its wait was %d s)", LONG_WAIT_SECONDS)
                .isFalse();
        assertThat(thrown.get())
                .isInstanceOf(AdmissionInterruptedException.class)
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("partition 'p'")
                .hasMessageContaining("interrupted")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(flagAfter).as("interrupt flag restored").isTrue();
        assertThat(g.queued()).isZero();
        assertThat(g.admitted()).isEqualTo(1);
    }

    @Test
    void aThreadInterruptedBeforeItMustWaitIsRefusedWithoutSleepingAndGivesItsTokenBack() {
        TokenBucketGate g = new TokenBucketGate(
                "p",
                10,
                AdmissionScope.ALL,
                10,
                TimeUnit.SECONDS.toNanos(10),
                0,
                fakeTicker,
                n -> {
                    sleeps.add(n);
                    now.addAndGet(n);
                },
                timer);
        Thread.currentThread().interrupt();
        try {
            g.acquire(RequestKind.WRITE, 1); // the token due now: no wait, so the interrupt does not matter here
            assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1)).isInstanceOf(AdmissionInterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(sleeps).isEmpty();
        } finally {
            Thread.interrupted();
        }
        g.acquire(RequestKind.WRITE, 1);
        assertThat(sleeps)
                .as("the next request takes the slot the interrupted one gave back")
                .containsExactly(100_000_000L);
    }

    @Test
    void anInterruptWhileWaitingGivesTheReservedTokenBack() {
        AtomicBoolean interruptNextSleep = new AtomicBoolean(true);
        TokenBucketGate g = new TokenBucketGate(
                "p",
                10,
                AdmissionScope.ALL,
                10,
                TimeUnit.SECONDS.toNanos(10),
                0,
                fakeTicker,
                n -> {
                    sleeps.add(n);
                    if (interruptNextSleep.getAndSet(false)) {
                        // a park that returns early because the thread was interrupted: no time passes
                        Thread.currentThread().interrupt();
                    } else {
                        now.addAndGet(n);
                    }
                },
                timer);
        g.acquire(RequestKind.WRITE, 1); // token due now; the next is due at 100 ms
        try {
            assertThatThrownBy(() -> g.acquire(RequestKind.WRITE, 1))
                    .isInstanceOf(AdmissionInterruptedException.class)
                    .hasMessageContaining("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(g.queued()).isZero();
        g.acquire(RequestKind.WRITE, 1);
        // 100 ms: the interrupted request's slot; without the give-back this request would wait 200 ms.
        assertThat(sleeps).containsExactly(100_000_000L, 100_000_000L);
        assertThat(g.admitted()).isEqualTo(2);
    }

    @Test
    void cancellingAnAsyncRequestFreesItsPlaceAndGivesItsTokenBack() {
        TokenBucketGate g = new TokenBucketGate(
                "p",
                10,
                AdmissionScope.ALL,
                10,
                TimeUnit.SECONDS.toNanos(10),
                0,
                fakeTicker,
                n -> {
                    sleeps.add(n);
                    now.addAndGet(n);
                },
                timer);
        assertThat(g.acquireAsync(RequestKind.WRITE, 1)).isCompleted();
        CompletableFuture<Void> waiting = g.acquireAsync(RequestKind.WRITE, 1);
        assertThat(g.queued()).isEqualTo(1);
        assertThat(waiting.cancel(false)).isTrue();
        assertThat(g.queued()).isZero();
        g.acquire(RequestKind.WRITE, 1);
        assertThat(sleeps).containsExactly(100_000_000L);
        assertThat(g.admitted()).isEqualTo(2);
    }

    // --- close ----------------------------------------------------------------------------------------------------

    @Test
    void closeFailsEverySyncWaiterPromptly() throws Exception {
        int n = 6;
        TokenBucketGate g = slowRealGate(n);
        g.acquire(RequestKind.WRITE, 1);
        List<AtomicReference<Throwable>> thrown = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            AtomicReference<Throwable> e = new AtomicReference<>();
            thrown.add(e);
            waiters.add(start(() -> {
                try {
                    g.acquire(RequestKind.WRITE, 1);
                } catch (Throwable x) {
                    e.set(x);
                }
            }));
        }
        await().atMost(PROMPTLY).until(() -> g.queued() == n);
        g.close();
        for (Thread t : waiters) {
            t.join(PROMPTLY.toMillis());
            assertThat(t.isAlive())
                    .as("a waiter parked for ~%d s was not woken by close", LONG_WAIT_SECONDS)
                    .isFalse();
        }
        assertThat(thrown)
                .allSatisfy(e -> assertThat(e.get())
                        .isInstanceOf(OverloadedException.class)
                        .hasMessageContaining("partition 'p'")
                        .hasMessageContaining("closed"));
        assertThat(g.queued()).isZero();
        assertThat(g.admitted()).isEqualTo(1);
    }

    @Test
    void closeFailsEveryAsyncWaiterPromptly() throws Exception {
        int n = 6;
        TokenBucketGate g = slowRealGate(n);
        g.acquire(RequestKind.WRITE, 1);
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        // Dependent stages must not run inside close() (a caller's callback would then run under the closer's
        // locks). After close() returns, a thread blocked in get() may legitimately help run them
        // (CompletableFuture.waitingGet), so only stages that ran on this thread *during* close() count.
        Thread closer = Thread.currentThread();
        java.util.concurrent.atomic.AtomicBoolean inClose = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger ranInsideClose = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger completed = new java.util.concurrent.atomic.AtomicInteger();
        for (int i = 0; i < n; i++) {
            CompletableFuture<Void> f = g.acquireAsync(RequestKind.WRITE, 1);
            f.whenComplete((v, e) -> {
                if (inClose.get() && Thread.currentThread() == closer) {
                    ranInsideClose.incrementAndGet();
                }
                completed.incrementAndGet();
            });
            fs.add(f);
        }
        assertThat(fs).noneMatch(CompletableFuture::isDone);
        assertThat(g.queued()).isEqualTo(n);
        inClose.set(true);
        g.close();
        inClose.set(false);
        for (CompletableFuture<Void> f : fs) {
            assertThatThrownBy(() -> f.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("closed");
        }
        assertThat(g.queued()).isZero();
        assertThat(g.acquireAsync(RequestKind.WRITE, 1)).isCompletedExceptionally();
        await().atMost(PROMPTLY).until(() -> completed.get() == n);
        assertThat(ranInsideClose.get())
                .as("dependent stages ran inside close()")
                .isZero();
    }

    @Test
    void closeRacingWithArrivalsLeavesNoWaiterBehind() throws Exception {
        for (int round = 0; round < 20; round++) {
            TokenBucketGate g = slowRealGate(10_000);
            List<CompletableFuture<Void>> fs = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Thread> arrivals = new ArrayList<>();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(4);
            for (int i = 0; i < 4; i++) {
                arrivals.add(start(() -> {
                    started.countDown();
                    while (true) {
                        CompletableFuture<Void> f = g.acquireAsync(RequestKind.WRITE, 1);
                        fs.add(f);
                        if (f.isCompletedExceptionally()) {
                            return; // refused: the gate is closed
                        }
                    }
                }));
            }
            started.await();
            await().atMost(PROMPTLY).until(() -> fs.size() > 50);
            g.close();
            for (Thread t : arrivals) {
                t.join(PROMPTLY.toMillis());
                assertThat(t.isAlive()).isFalse();
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(
                    fs.stream().map(f -> f.handle((v, e) -> null)).toArray(CompletableFuture[]::new));
            all.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
            assertThat(fs.stream().filter(f -> !f.isCompletedExceptionally()))
                    .as("only the request due at once was admitted")
                    .hasSize(1);
            assertThat(g.queued()).isZero();
        }
    }

    @Test
    void anAsyncRequestThatCannotBeScheduledFailsAndFreesItsPlace() {
        TokenBucketGate g = new TokenBucketGate(
                "p", 10, AdmissionScope.ALL, 10, TimeUnit.SECONDS.toNanos(10), 0, fakeTicker, n -> {}, timer);
        assertThat(g.acquireAsync(RequestKind.WRITE, 1)).isCompleted();
        timer.shutdownNow();
        CompletableFuture<Void> f = g.acquireAsync(RequestKind.WRITE, 1);
        assertThat(f).isCompletedExceptionally();
        assertThatThrownBy(f::join)
                .hasCauseInstanceOf(OverloadedException.class)
                .hasMessageContaining("timer");
        assertThat(g.queued()).isZero();
    }
}
