package dev.sluice.bench.jmh;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The request path through Sluice's {@code Partition} (admission gate check, limits, RocksDB JNI call, counters) on
 * the default stack: {@code put} of a random existing key (an overwrite, no WAL sync) and {@code get} of a random
 * existing key (memtable or block-cache hit for this small store). One client thread; the numbers include RocksDB.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class PartitionOpsBenchmark {
    private static final long KEYS = 100_000;

    @Param({"100", "1024"})
    public int valueBytes;

    private BenchNode node;
    private byte[][] keys;
    private byte[] value;
    private final SplittableRandom rnd = new SplittableRandom(42);

    @Setup(Level.Trial)
    public void open() throws IOException {
        node = new BenchNode(KEYS, valueBytes);
        keys = new byte[4096][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = node.codec.key(rnd.nextLong(KEYS));
        }
        value = new byte[valueBytes];
        rnd.nextBytes(value);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        node.close();
    }

    @Benchmark
    public void put() {
        node.partition.put(keys[rnd.nextInt(keys.length)], value);
    }

    @Benchmark
    public byte[] get() {
        return node.partition.get(keys[rnd.nextInt(keys.length)]);
    }
}
