package dev.sluice.bench.jmh;

import dev.sluice.core.sensor.NodeSnapshot;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one sensor sample ({@code SluiceNode.sample()}: RocksDB properties, Statistics, level metadata, Env
 * counters) for a one-partition node holding 50k keys. docs/architecture.md §2.1 budgets sampling at well under 1 % of a core at one
 * tick per second, i.e. well under 10 ms per sample.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SnapshotSamplingBenchmark {
    private BenchNode node;

    @Setup(Level.Trial)
    public void open() throws IOException {
        node = new BenchNode(50_000, 256);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        node.close();
    }

    @Benchmark
    public NodeSnapshot sample() {
        return node.node.sample();
    }
}
