package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The open-loop driver must count latency from each request's intended start, so queueing behind a slow store shows
 * up in the latencies (no coordinated omission). Uses real time with a deliberately slow fake store; the tests wait
 * for counts (every arrival generated, every request finished) rather than for fixed times, and their time bounds only
 * move one way on a slow machine (a busier machine makes queueing latencies longer, not shorter).
 */
class OpenLoopDriverTest {
    /** A "store" whose every request takes {@code serviceMillis}; records its own service times. */
    static final class SlowTask implements OpTask {
        final long serviceNanos;
        final List<Long> serviceTimes = new CopyOnWriteArrayList<>();

        SlowTask(long serviceMillis) {
            this.serviceNanos = TimeUnit.MILLISECONDS.toNanos(serviceMillis);
        }

        @Override
        public OpKind pick(SplittableRandom rnd) {
            return OpKind.READ;
        }

        @Override
        public void execute(OpKind kind, SplittableRandom rnd) {
            long start = System.nanoTime();
            long end = start + serviceNanos;
            while (System.nanoTime() < end) {
                java.util.concurrent.locks.LockSupport.parkNanos(end - System.nanoTime());
            }
            serviceTimes.add(System.nanoTime() - start);
        }
    }

    static final class ListSink implements OpSink {
        final List<Long> latencies = new CopyOnWriteArrayList<>();
        final AtomicInteger rejected = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        @Override
        public void completed(OpKind kind, long latencyNanos) {
            latencies.add(latencyNanos);
        }

        @Override
        public void rejected(OpKind kind) {
            rejected.incrementAndGet();
        }

        @Override
        public void failed(OpKind kind, RuntimeException e) {
            failed.incrementAndGet();
        }
    }

    @Test
    void latencyRunsFromTheIntendedStartSoQueueingCounts() throws Exception {
        // Offered 200 req/s for 0.6 s; one worker that needs 20 ms per request can do 50 req/s. The queue grows by
        // ~150/s; the k-th request waits ~ k * (20 ms - 5 ms). A closed-loop (coordinated) measurement would report
        // ~20 ms for every request.
        SlowTask task = new SlowTask(20);
        ListSink sink = new ListSink();
        OpenLoopDriver d = new OpenLoopDriver(
                "t", new LoadShape.Constant(200), false, 1_000_000, 1, task, sink, System::nanoTime, 1);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long end = start + TimeUnit.MILLISECONDS.toNanos(600);
        d.start(start, end);
        // 0.6 s x 200/s, evenly spaced 5 ms apart from t = 0: exactly 120 arrivals, however late the generator runs.
        Waiting.until("120 arrivals", () -> d.generated() == 120);
        while (System.nanoTime() < end) {
            Thread.sleep(10);
        }
        long backlogBeforeStop = d.backlog();
        d.stop();
        assertThat(d.await(5_000)).isTrue();

        assertThat(d.generated()).isEqualTo(120);
        // By the end of the phase the worker finished at most 0.6 s / 20 ms = 30 (fewer on a busy machine).
        assertThat(backlogBeforeStop).isGreaterThan(50);
        assertThat(d.unstartedAtStop()).isGreaterThan(50);
        // Every arrival either ran (and has a latency) or is counted as never started.
        assertThat(sink.latencies.size() + d.unstartedAtStop()).isEqualTo(d.generated());
        long maxService =
                task.serviceTimes.stream().mapToLong(Long::longValue).max().orElseThrow();
        long maxLatency =
                sink.latencies.stream().mapToLong(Long::longValue).max().orElseThrow();
        long medianService = task.serviceTimes.stream().sorted().toList().get(task.serviceTimes.size() / 2);
        // Completed ~30 requests; the last of them arrived ~150 ms in and started ~600 ms in. A slower machine
        // completes
        // fewer, whose last arrived earlier: its latency only grows.
        assertThat(maxLatency).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(300));
        // What a coordinated (closed-loop) measurement would report is the service time; the queueing is far above it.
        assertThat(maxLatency).isGreaterThan(5 * medianService).isGreaterThan(maxService);
        // Latencies grow with the backlog: the later half of the completions waited longer than the first half.
        int n = sink.latencies.size();
        double firstHalf = sink.latencies.subList(0, n / 2).stream()
                .mapToLong(Long::longValue)
                .average()
                .orElse(0);
        double secondHalf = sink.latencies.subList(n / 2, n).stream()
                .mapToLong(Long::longValue)
                .average()
                .orElse(0);
        assertThat(secondHalf).isGreaterThan(firstHalf + TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(d.takeMaxBacklog()).isGreaterThanOrEqualTo(backlogBeforeStop);
    }

    @Test
    void aFastStoreSeesAboutItsServiceTime() throws Exception {
        SlowTask task = new SlowTask(1);
        ListSink sink = new ListSink();
        OpenLoopDriver d = new OpenLoopDriver(
                "t", new LoadShape.Constant(100), false, 1_000_000, 2, task, sink, System::nanoTime, 1);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long end = start + TimeUnit.MILLISECONDS.toNanos(500);
        d.start(start, end);
        // 0.5 s x 100/s: exactly 50 arrivals, all of which two workers with 1-ms requests can serve.
        Waiting.until("50 requests served", () -> sink.latencies.size() == 50);
        d.stop();
        assertThat(d.await(5_000)).isTrue();
        assertThat(d.generated()).isEqualTo(50);
        assertThat(sink.latencies).hasSize(50);
        long median = sink.latencies.stream().sorted().toList().get(sink.latencies.size() / 2);
        // About the 1-ms service time; the bound leaves room for a busy machine's scheduling delays while staying far
        // below the hundreds of ms that queueing produces in the test above.
        assertThat(median).isLessThan(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(d.unstartedAtStop()).isZero();
        assertThat(d.dropped()).isZero();
    }

    @Test
    void arrivalsBeyondTheBacklogBoundAreDroppedAndCounted() throws Exception {
        SlowTask task = new SlowTask(50);
        ListSink sink = new ListSink();
        OpenLoopDriver d =
                new OpenLoopDriver("t", new LoadShape.Constant(1000), false, 10, 1, task, sink, System::nanoTime, 1);
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(200);
        d.start(start, end);
        // 0.2 s x 1000/s: exactly 200 arrivals; at most 10 wait and one worker serves one per 50 ms.
        Waiting.until("200 arrivals", () -> d.generated() == 200);
        d.stop();
        assertThat(d.await(5_000)).isTrue();
        assertThat(d.generated()).isEqualTo(200);
        // Served while arriving: one per 50 ms, ~5 on time; even a generator running 10x late leaves > 100 dropped.
        assertThat(d.dropped()).isGreaterThan(100);
        assertThat(d.takeMaxBacklog()).isLessThanOrEqualTo(10);
        // Nothing is lost: every arrival ran, was dropped at the bound, or was still queued at the stop.
        assertThat(sink.latencies.size() + d.dropped() + d.unstartedAtStop()).isEqualTo(d.generated());
    }

    @Test
    void rejectionsAreCountedNotTimed() throws Exception {
        AtomicLong calls = new AtomicLong();
        OpTask rejecting = new OpTask() {
            @Override
            public OpKind pick(SplittableRandom rnd) {
                return OpKind.INSERT;
            }

            @Override
            public void execute(OpKind kind, SplittableRandom rnd) {
                if (calls.incrementAndGet() % 2 == 0) {
                    throw new IllegalStateException("overloaded");
                }
            }

            @Override
            public boolean isRejection(RuntimeException e) {
                return e instanceof IllegalStateException;
            }
        };
        ListSink sink = new ListSink();
        OpenLoopDriver d = new OpenLoopDriver(
                "t", new LoadShape.Constant(500), false, 1000, 1, rejecting, sink, System::nanoTime, 1);
        long start = System.nanoTime();
        d.start(start, start + TimeUnit.MILLISECONDS.toNanos(200));
        // 0.2 s x 500/s: exactly 100 arrivals; one worker, every second call refused.
        Waiting.until("100 requests run", () -> sink.rejected.get() + sink.latencies.size() == 100);
        d.stop();
        assertThat(d.await(5_000)).isTrue();
        assertThat(d.generated()).isEqualTo(100);
        assertThat(sink.rejected.get()).isEqualTo(50);
        assertThat(sink.latencies).hasSize(50);
        assertThat(sink.failed.get()).isZero();
    }
}
