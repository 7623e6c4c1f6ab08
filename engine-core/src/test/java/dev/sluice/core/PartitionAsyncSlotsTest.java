package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link PartitionAsyncSlots}: the per-partition limit on the shared pool, its queue bound and its order. */
class PartitionAsyncSlotsTest {
    @Test
    void atMostLimitRunAtOnceTheRestWaitInOrderAndTheQueueIsBounded() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            PartitionAsyncSlots slots = new PartitionAsyncSlots(pool, 1, 2, e -> e);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            StringBuilder order = new StringBuilder();
            CompletableFuture<String>[] done = new CompletableFuture[3];
            for (int i = 0; i < 3; i++) {
                String name = "r" + i;
                done[i] = new CompletableFuture<>();
                slots.execute(new RocksPartition.AsyncTask<>(done[i], () -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    synchronized (order) {
                        order.append(name).append(' ');
                    }
                    running.decrementAndGet();
                    return name;
                }));
            }
            assertThat(slots.waiting())
                    .as("one running, two waiting in the partition's queue")
                    .isEqualTo(2);
            assertThatThrownBy(
                            () -> slots.execute(new RocksPartition.AsyncTask<>(new CompletableFuture<>(), () -> "x")))
                    .isInstanceOf(RejectedExecutionException.class);
            release.countDown();
            for (CompletableFuture<String> f : done) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThat(maxRunning.get())
                    .as("requests of the partition on pool threads at once")
                    .isEqualTo(1);
            assertThat(order.toString()).isEqualTo("r0 r1 r2 ");
            // the last request may complete before the thread that handed it over counts it out of the queue
            await().atMost(Duration.ofSeconds(10)).until(() -> slots.waiting() == 0);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The node's close waits until {@link PartitionAsyncSlots#waiting()} is zero and then stops the pool. A request
     * leaving the partition's queue must therefore count as waiting until the pool has taken it: counted out before,
     * close could stop the pool in between, and the pool would refuse an admitted request (CI failure of
     * {@code PartitionAsyncIsolationTest}: "partition 'a' is closed" for a write queued before close).
     */
    @Test
    void aRequestCountsAsWaitingUntilThePoolHasTakenIt() throws Exception {
        CountDownLatch handing = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger executes = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
            @Override
            public void execute(Runnable r) {
                if (executes.incrementAndGet() == 2) { // the queued request, handed over as the first one ends
                    handing.countDown();
                    try {
                        letGo.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                super.execute(r);
            }
        };
        try {
            PartitionAsyncSlots slots = new PartitionAsyncSlots(pool, 1, 2, e -> e);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> first = new CompletableFuture<>(), second = new CompletableFuture<>();
            slots.execute(new RocksPartition.AsyncTask<>(first, () -> {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "first";
            }));
            slots.execute(new RocksPartition.AsyncTask<>(second, () -> "second"));
            assertThat(slots.waiting()).isEqualTo(1);
            release.countDown();
            assertThat(handing.await(10, TimeUnit.SECONDS))
                    .as("the second request is being handed to the pool")
                    .isTrue();
            assertThat(slots.waiting())
                    .as("a request on its way to the pool still counts as waiting")
                    .isEqualTo(1);
            letGo.countDown();
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("second");
            await().atMost(Duration.ofSeconds(10)).until(() -> slots.waiting() == 0);
        } finally {
            letGo.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void withoutALimitRequestsGoStraightToThePool() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            PartitionAsyncSlots slots = new PartitionAsyncSlots(pool, 0, 1, e -> e);
            CountDownLatch both = new CountDownLatch(2);
            CompletableFuture<Boolean> a = new CompletableFuture<>(), b = new CompletableFuture<>();
            slots.execute(new RocksPartition.AsyncTask<>(a, () -> awaitBoth(both)));
            slots.execute(new RocksPartition.AsyncTask<>(b, () -> awaitBoth(both)));
            assertThat(a.get(10, TimeUnit.SECONDS))
                    .as("both ran at the same time")
                    .isTrue();
            assertThat(b.get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean awaitBoth(CountDownLatch both) {
        both.countDown();
        try {
            return both.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
