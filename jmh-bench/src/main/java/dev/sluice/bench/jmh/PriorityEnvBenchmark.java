package dev.sluice.bench.jmh;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Per-I/O cost of the native priority Env (docs/architecture.md §3.3 budgets classify + account at ≤ 100 ns per I/O):
 *
 * <ul>
 *   <li>{@code classifyAccount} — classification plus the relaxed-atomic accounting, in a native loop of 1,000 calls per
 *       invocation (so the JNI transition is amortised away);
 *   <li>{@code passThroughPipeline} — the whole per-I/O path with a pass-through scheduler and no device: classify,
 *       fault check, scheduler check, two clock reads, account, around an empty I/O;
 *   <li>{@code get} — a RocksDB point lookup without block cache (one 4 KiB pread from the page cache per Get), on
 *       RocksDB's default Env and on the priority Env; the difference is the interposition in the real read path.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PriorityEnvBenchmark {
    private static final int LOOP = 1000;
    private static final int KEYS = 20_000;

    @Param({"priority", "default"})
    public String env;

    private PriorityEnv priorityEnv;
    private Path dir;
    private Options options;
    private RocksDB db;
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void open() throws IOException, RocksDBException {
        priorityEnv = PriorityEnv.open();
        dir = Files.createTempDirectory("sluice-jmh-env-");
        priorityEnv.registerPartition("bench", dir);
        Env e = env.equals("priority") ? priorityEnv.env() : Env.getDefault();
        options = new Options()
                .setCreateIfMissing(true)
                .setEnv(e)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setNoBlockCache(true));
        db = RocksDB.open(options, dir.toString());
        byte[] v = new byte[200];
        for (int i = 0; i < KEYS; i++) {
            random.nextBytes(v);
            db.put(key(i), v);
        }
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo);
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        db.close();
        options.close();
        priorityEnv.close(); // after the DB and Options that use it
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public double classifyAccount() {
        return priorityEnv.measureOverheadNanos(0, LOOP);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public double passThroughPipeline() {
        return priorityEnv.measureOverheadNanos(1, LOOP);
    }

    /** One synthetic I/O per call, including the JNI transition and the per-call file context set-up. */
    @Benchmark
    public long syntheticIoFromJava() {
        return priorityEnv.syntheticIo(IoClass.USER_GET, FaultRule.Op.READ, 4096, false);
    }

    @Benchmark
    public byte[] get() throws RocksDBException {
        return db.get(key(random.nextInt(KEYS)));
    }

    private static byte[] key(int i) {
        return String.format("key%010d", i).getBytes();
    }
}
