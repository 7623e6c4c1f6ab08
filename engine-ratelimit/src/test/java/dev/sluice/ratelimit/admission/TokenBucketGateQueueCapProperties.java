package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Ticker;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The waiting-queue cap is exact under concurrency: however many callers race for the last places, no more than {@code
 * queue.max} requests are ever waiting.
 *
 * <p>The schedule is forced rather than hoped for: each racing thread blocks inside its first {@link Ticker#read()}
 * until every racer has either read the clock too or been refused. The gate reads the clock when it reserves a token,
 * so this lines up every caller between "is there room?" and "I am waiting" — the window a check-then-act cap leaves
 * open. It is deterministic: it does not depend on how the two CI cores interleave.
 */
class TokenBucketGateQueueCapProperties {

    /** A fake clock (1 token/s) whose first read in each racing thread waits for all the racers. */
    static final class LineUpTicker extends Ticker {
        final AtomicLong now = new AtomicLong();
        final ThreadLocal<Boolean> settled = ThreadLocal.withInitial(() -> false);
        volatile CountDownLatch lineUp = new CountDownLatch(0);

        @Override
        public long read() {
            settle(true);
            return now.get();
        }

        /** Marks this thread as arrived (once); when {@code wait}, blocks until every racer has arrived. */
        void settle(boolean wait) {
            if (settled.get()) {
                return;
            }
            settled.set(true);
            CountDownLatch l = lineUp;
            l.countDown();
            if (wait) {
                try {
                    if (!l.await(60, TimeUnit.SECONDS)) {
                        throw new AssertionError("racers never lined up");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Property(tries = 40)
    void noMoreThanTheCapEverWait(
            @ForAll @IntRange(min = 1, max = 6) int cap,
            @ForAll @IntRange(min = 1, max = 12) int extra,
            @ForAll boolean async)
            throws Exception {
        int racers = cap + extra;
        LineUpTicker ticker = new LineUpTicker();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch arrived = new CountDownLatch(racers);
        AtomicInteger sleeping = new AtomicInteger();
        ThreadLocal<Boolean> counted = ThreadLocal.withInitial(() -> false);
        Runnable arrive = () -> {
            if (!counted.get()) {
                counted.set(true);
                arrived.countDown();
            }
        };
        TokenBucketGate.Sleeper sleeper = n -> {
            sleeping.incrementAndGet();
            arrive.run();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sleeping.decrementAndGet();
            ticker.now.addAndGet(n);
        };
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        TokenBucketGate g = new TokenBucketGate(
                "p", 1, AdmissionScope.ALL, cap, TimeUnit.SECONDS.toNanos(1_000_000), 0, ticker, sleeper, timer);
        ticker.lineUp = new CountDownLatch(racers);
        List<CompletableFuture<Void>> futures = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < racers; i++) {
                Thread t = new Thread(() -> {
                    try {
                        if (async) {
                            CompletableFuture<Void> f = g.acquireAsync(RequestKind.WRITE, 1);
                            futures.add(f);
                            if (f.isCompletedExceptionally()) {
                                refused.incrementAndGet();
                            }
                        } else {
                            g.acquire(RequestKind.WRITE, 1);
                        }
                    } catch (OverloadedException e) {
                        refused.incrementAndGet();
                    } finally {
                        ticker.settle(false); // refused before reading the clock: let the others go on
                        arrive.run();
                    }
                });
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            assertThat(arrived.await(60, TimeUnit.SECONDS))
                    .as("every racer was admitted, refused or started waiting")
                    .isTrue();
            long waiting = async ? futures.stream().filter(f -> !f.isDone()).count() : sleeping.get();
            assertThat(waiting)
                    .as("%d racers for %d places (%s): waiting requests", racers, cap, async ? "async" : "sync")
                    .isLessThanOrEqualTo(cap);
            assertThat(g.queued()).isLessThanOrEqualTo(cap);
            assertThat(refused.get()).as("refused").isGreaterThanOrEqualTo(racers - cap);
        } finally {
            g.close();
            release.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            timer.shutdownNow();
        }
    }
}
