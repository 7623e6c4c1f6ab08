package dev.sluice.bench.jmh;

import dev.sluice.core.RequestKind;
import dev.sluice.ratelimit.admission.AdmissionScope;
import dev.sluice.ratelimit.admission.TokenBucketGate;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The admission gate's fast path (CruiseDB's request rate limiter): a token that is available at once. The rate is set
 * far above what the threads can take, so no call waits and the benchmark measures the reservation CAS, the queue
 * bookkeeping and the clock read — with 1, 4 and 16 threads contending for one partition's bucket (on a 2-core machine
 * 4 and 16 threads also measure preemption). {@code open} is the gate before a controller sets a rate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AdmissionGateBenchmark {
    private TokenBucketGate limited;
    private TokenBucketGate open;

    @Setup(Level.Trial)
    public void setUp() {
        long second = TimeUnit.SECONDS.toNanos(1);
        limited = TokenBucketGate.create(
                "bench", 1e12, AdmissionScope.ALL, 10_000, second, TimeUnit.MILLISECONDS.toNanos(10));
        open = TokenBucketGate.create("bench", Double.POSITIVE_INFINITY, AdmissionScope.ALL, 10_000, second, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        limited.close();
        open.close();
    }

    @Benchmark
    @Threads(1)
    public void acquire1() {
        limited.acquire(RequestKind.WRITE, 1040);
    }

    @Benchmark
    @Threads(4)
    public void acquire4() {
        limited.acquire(RequestKind.WRITE, 1040);
    }

    @Benchmark
    @Threads(16)
    public void acquire16() {
        limited.acquire(RequestKind.WRITE, 1040);
    }

    @Benchmark
    @Threads(1)
    public void openGate() {
        open.acquire(RequestKind.WRITE, 1040);
    }
}
