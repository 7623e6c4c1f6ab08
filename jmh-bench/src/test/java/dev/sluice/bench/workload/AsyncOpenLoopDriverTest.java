package dev.sluice.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Batch;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The async open-loop driver on a real node (real RocksDB through {@code Sluice.open}) whose static admission gate
 * admits far less than is offered: the overload must reach the gate — which refuses the excess — instead of queueing in
 * the client, every arrival must be accounted for (completed, rejected or dropped), and the requests in flight must
 * never exceed the driver's bound.
 */
class AsyncOpenLoopDriverTest {
    private static final int PRELOAD_KEYS = 1000;
    private static final int VALUE_BYTES = 100;

    @TempDir
    Path dir;

    /** Counts what the driver reports; keeps latencies and the failures (for the assertion messages). */
    static final class CountingSink implements OpSink {
        final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        final LongAdder rejected = new LongAdder();
        final ConcurrentLinkedQueue<RuntimeException> failures = new ConcurrentLinkedQueue<>();

        @Override
        public void completed(OpKind kind, long latencyNanos) {
            latencies.add(latencyNanos);
        }

        @Override
        public void rejected(OpKind kind) {
            rejected.increment();
        }

        @Override
        public void failed(OpKind kind, RuntimeException e) {
            failures.add(e);
        }
    }

    /** A node whose default partition admits {@code rate} requests/s (static admission), preloaded and gated. */
    private SluiceNode gatedNode(String name, double rate, int queueMax, long waitMaxMs) throws InterruptedException {
        SluiceConfig config = SluiceConfig.builder(dir.resolve(name))
                .tickPeriod(Duration.ofMillis(50))
                .controls(List.of("static-admission"))
                .controlOption("static-admission", "rate", String.valueOf(rate))
                .controlOption("static-admission", "queue.max", String.valueOf(queueMax))
                .controlOption("static-admission", "wait.max.ms", String.valueOf(waitMaxMs))
                .build();
        SluiceNode node = Sluice.open(config);
        try {
            Partition p = node.defaultPartition();
            KeyCodec codec = new KeyCodec(16);
            Batch b = new Batch();
            for (int i = 0; i < PRELOAD_KEYS; i++) {
                b.put(codec.key(i), new byte[VALUE_BYTES]);
            }
            p.write(b);
            // The controller fixes the rate at its first tick with an interval; until then the gate admits everything.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Double.isFinite(p.snapshot().admissionRate())) {
                assertThat(System.nanoTime())
                        .as("static admission set no rate within 10 s")
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(p.snapshot().admissionRate()).isEqualTo(rate);
            return node;
        } catch (RuntimeException | Error | InterruptedException e) {
            node.close();
            throw e;
        }
    }

    private static StoreWorkload workload(Partition p, Map<OpKind, Double> mix) {
        return new StoreWorkload(
                p,
                new KeyCodec(16),
                VALUE_BYTES,
                new AtomicLong(PRELOAD_KEYS),
                new OpMix(mix),
                new KeyDistribution(KeyDistribution.Kind.UNIFORM, 0.99, 0.2, 0.8),
                5,
                11);
    }

    /**
     * Runs the driver over {@code [start, start + millis)} until it has generated all {@code arrivals} (however late a
     * busy machine runs its generator), sampling its in-flight count every 0.5 ms meanwhile.
     */
    private static long runSampling(AsyncOpenLoopDriver d, long millis, long arrivals) {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
        d.start(start, end);
        long maxSeen = 0;
        long deadline = end + TimeUnit.MILLISECONDS.toNanos(Waiting.TIMEOUT_MILLIS);
        while (System.nanoTime() < end || d.generated() < arrivals) {
            assertThat(System.nanoTime()).as("%d arrivals generated", arrivals).isLessThan(deadline);
            maxSeen = Math.max(maxSeen, d.backlog());
            java.util.concurrent.locks.LockSupport.parkNanos(500_000);
        }
        return maxSeen;
    }

    @Test
    void overloadReachesTheGateWhichRefusesTheExcessWhileNothingQueuesInTheClient() throws Exception {
        // Offered 2000/s for 1.5 s (3000 arrivals) against a gate admitting 200/s with at most 20 waiting, each at most
        // 100 ms: about 300 + 20 complete, the rest is refused by the gate. RMW's second stage (a putAsync chained on
        // the
        // getAsync) is admitted on its own and can be refused too: it must still count as a rejection.
        try (SluiceNode node = gatedNode("gate", 200, 20, 100)) {
            CountingSink sink = new CountingSink();
            AsyncOpenLoopDriver d = new AsyncOpenLoopDriver(
                    "overload",
                    new LoadShape.Constant(2000),
                    false,
                    1_000_000,
                    workload(node.defaultPartition(), Map.of(OpKind.INSERT, 40.0, OpKind.READ, 40.0, OpKind.RMW, 20.0)),
                    sink,
                    System::nanoTime,
                    3);
            long maxSeen = runSampling(d, 1500, 3000);
            d.stop();
            assertThat(d.await(10_000))
                    .as("generator finished and in-flight requests drained")
                    .isTrue();

            assertThat(sink.failures).as("failures").isEmpty();
            long completed = sink.latencies.size();
            long rejected = sink.rejected.sum();
            assertThat(d.generated()).isEqualTo(3000); // 1.5 s x 2000/s, evenly spaced from t = 0
            assertThat(d.dropped()).isZero();
            assertThat(d.unstartedAtStop()).isZero();
            assertThat(completed + rejected)
                    .as("every arrival completed or was refused")
                    .isEqualTo(d.generated());
            // The gate admits 200/s of wall time plus its 20 waiters: ~320 on time. A busy machine that stretches the
            // phase admits more, but even 3x stretched that stays below half of what was offered.
            assertThat(rejected).as("refused by the gate").isGreaterThan(1500);
            assertThat(completed).as("admitted at ~200/s").isBetween(150L, 1500L);
            // The overload waits in the gate (≤ 20 requests), not in the client: in flight stays near queue.max
            // (plus requests on their way to the gate on a busy machine) although 3000 requests were offered.
            long peak = d.takeMaxBacklog();
            assertThat(peak).isGreaterThanOrEqualTo(maxSeen).isBetween(10L, 150L);
            assertThat(d.backlog()).isZero();
            // Latency runs from the intended start and so includes the admission wait (up to 100 ms).
            long maxLatency =
                    sink.latencies.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(maxLatency).isBetween(TimeUnit.MILLISECONDS.toNanos(40), TimeUnit.SECONDS.toNanos(2));
        }
    }

    @Test
    void arrivalsFindingMaxInflightAreDroppedAndCountedAndInFlightRequestsDrainAfterStop() throws Exception {
        // The gate admits 100/s and lets up to 10,000 requests wait up to 10 s, so it refuses nothing; the driver's own
        // bound of 25 in flight is what limits: offered 1000/s for 0.5 s, most arrivals find 25 in flight.
        try (SluiceNode node = gatedNode("bound", 100, 10_000, 10_000)) {
            CountingSink sink = new CountingSink();
            AsyncOpenLoopDriver d = new AsyncOpenLoopDriver(
                    "bound",
                    new LoadShape.Constant(1000),
                    false,
                    25,
                    workload(node.defaultPartition(), Map.of(OpKind.UPDATE, 50.0, OpKind.SCAN, 50.0)),
                    sink,
                    System::nanoTime,
                    5);
            long maxSeen = runSampling(d, 500, 500);
            long inFlightAtStop = d.backlog();
            d.stop();
            long generatedAtStop = d.generated();
            assertThat(d.await(10_000)).isTrue();

            assertThat(maxSeen).as("in flight, sampled").isLessThanOrEqualTo(25);
            assertThat(d.takeMaxBacklog()).as("peak in flight").isEqualTo(25);
            assertThat(inFlightAtStop)
                    .as("requests still in flight at the stop")
                    .isPositive();
            assertThat(d.generated()).isEqualTo(generatedAtStop).isEqualTo(500); // 0.5 s x 1000/s
            // At most 100/s of wall time complete (~50 on time) and 25 are in flight: ~425 dropped on time, and still
            // more than 100 if a busy machine stretched the phase 3x.
            assertThat(d.dropped()).as("dropped at the bound").isGreaterThan(100);
            assertThat(sink.failures).isEmpty();
            assertThat(sink.rejected.sum()).isZero();
            // The requests in flight at the stop completed on their own and were counted: nothing is lost.
            assertThat(d.backlog()).isZero();
            assertThat(sink.latencies.size() + d.dropped()).isEqualTo(d.generated());
            assertThat(d.unstartedAtStop()).isZero();
        }
    }

    @Test
    void arrivalsFollowTheSameScheduleAsTheSyncDriver() throws Exception {
        // Same shape, Poisson arrivals and seed: the async driver offers exactly the sync driver's intended starts.
        List<Long> sync = intendedStarts(true);
        List<Long> async = intendedStarts(false);
        assertThat(async).hasSizeGreaterThan(50).isEqualTo(sync);
    }

    /** Intended start times (relative to the start) that a driver reports as latency at a frozen clock. */
    private static List<Long> intendedStarts(boolean sync) throws InterruptedException {
        long start = 1_000_000_000L;
        long end = start + TimeUnit.MILLISECONDS.toNanos(100);
        AtomicLong now = new AtomicLong(end); // every arrival is due at once; latency = end - intended
        ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
        OpSink sink = new OpSink() {
            @Override
            public void completed(OpKind kind, long latencyNanos) {
                seen.add(end - latencyNanos - start);
            }

            @Override
            public void rejected(OpKind kind) {}

            @Override
            public void failed(OpKind kind, RuntimeException e) {
                throw new AssertionError(e);
            }
        };
        AsyncOpTask instant = new AsyncOpTask() {
            @Override
            public OpKind pick(SplittableRandom rnd) {
                return OpKind.READ;
            }

            @Override
            public void execute(OpKind kind, SplittableRandom rnd) {}

            @Override
            public java.util.concurrent.CompletableFuture<?> executeAsync(OpKind kind, SplittableRandom rnd) {
                return java.util.concurrent.CompletableFuture.completedFuture(null);
            }
        };
        LoadShape shape = new LoadShape.Constant(1000);
        LoadDriver d = sync
                ? new OpenLoopDriver("s", shape, true, 1_000_000, 1, instant, sink, now::get, 9)
                : new AsyncOpenLoopDriver("a", shape, true, 1_000_000, instant, sink, now::get, 9);
        d.start(start, end);
        assertThat(d.await(5_000)).isTrue();
        return seen.stream().sorted().toList();
    }
}
