package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClass;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * A measurement program, not a test (it asserts nothing): Get latency while a compaction runs unthrottled vs. with the
 * compaction classes capped, and the achieved rate under a Get ops cap. Prints a Markdown table. Run (after {@code
 * ./mvnw -pl engine-ratelimit test-compile}):
 *
 * <pre>
 * java -cp engine-ratelimit/target/test-classes:engine-ratelimit/target/classes:$(cat cp.txt) \
 *     dev.sluice.ratelimit.env.ThrottleMeasurement
 * </pre>
 *
 * where {@code cp.txt} comes from {@code ./mvnw -pl engine-ratelimit dependency:build-classpath -Dmdep.outputFile=cp.txt}.
 */
public final class ThrottleMeasurement {
    private static final int KEYS = 40_000;
    private static final int VALUE = 800;

    private ThrottleMeasurement() {}

    public static void main(String[] args) throws Exception {
        double compactionCap = 16.0 * (1 << 20);
        double getCap = 2000;
        Path dir = Files.createTempDirectory("sluice-throttle-");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("m", dir);
            try (Options o = new Options()
                            .setCreateIfMissing(true)
                            .setEnv(env.env())
                            .setCompressionType(CompressionType.NO_COMPRESSION)
                            .setDisableAutoCompactions(true)
                            .setWriteBufferSize(8L << 20)
                            .setTableFormatConfig(new BlockBasedTableConfig().setNoBlockCache(true));
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                System.out.println("| scenario | Get p50 µs | Get p99 µs | Gets/s | compaction MiB | compaction s |");
                System.out.println("|---|---|---|---|---|---|");
                load(db, fo);
                row("no compaction", getsDuring(db, null, 3000), 0, 0);
                load(db, fo);
                runWithCompaction(db, env, "compaction unthrottled");
                for (IoClass c :
                        new IoClass[] {IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP}) {
                    env.setClassLimit(c, 0, compactionCap);
                }
                load(db, fo);
                runWithCompaction(db, env, "compaction capped at 16 MiB/s per class");
                for (IoClass c : IoClass.values()) {
                    env.setClassLimit(c, 0, 0);
                }
                env.setClassLimit(IoClass.USER_GET, getCap, 0);
                IoDetail before = env.ioDetail();
                long t0 = System.nanoTime();
                long[] lat = getsDuring(db, null, 3000);
                double secs = (System.nanoTime() - t0) / 1e9;
                long reads = env.ioDetail().minus(before).get(IoClass.USER_GET).ops();
                row("USER_GET capped at 2000 reads/s (achieved " + Math.round(reads / secs) + " reads/s)", lat, 0, 0);
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static void runWithCompaction(RocksDB db, PriorityEnv env, String name) throws Exception {
        IoDetail before = env.ioDetail();
        AtomicBoolean done = new AtomicBoolean();
        long[] compactionNanos = new long[1];
        Thread compactor = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                db.compactRange();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                compactionNanos[0] = System.nanoTime() - t0;
                done.set(true);
            }
        });
        compactor.start();
        long[] lat = getsDuring(db, done, 60_000);
        compactor.join();
        IoDetail d = env.ioDetail().minus(before);
        long bytes = d.get(IoClass.COMPACTION_L0).bytes()
                + d.get(IoClass.COMPACTION_HIGH).bytes()
                + d.get(IoClass.COMPACTION_DEEP).bytes();
        row(name, lat, bytes / (double) (1 << 20), compactionNanos[0] / 1e9);
    }

    /** One reader doing random Gets until {@code until} is set (or {@code maxMillis}); returns latencies in ns. */
    private static long[] getsDuring(RocksDB db, AtomicBoolean until, long maxMillis) throws Exception {
        SplittableRandom r = new SplittableRandom(3);
        long[] lat = new long[1 << 22];
        int n = 0;
        long end = System.nanoTime() + maxMillis * 1_000_000;
        long start = System.nanoTime();
        while (System.nanoTime() < end && (until == null || !until.get()) && n < lat.length) {
            long t0 = System.nanoTime();
            db.get(key(r.nextInt(KEYS)));
            lat[n++] = System.nanoTime() - t0;
        }
        long[] out = Arrays.copyOf(lat, n);
        Arrays.sort(out);
        rate = n / ((System.nanoTime() - start) / 1e9);
        return out;
    }

    private static double rate;

    private static void load(RocksDB db, FlushOptions fo) throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        byte[] v = new byte[VALUE];
        for (int f = 0; f < 4; f++) {
            for (int i = 0; i < KEYS / 2; i++) {
                r.nextBytes(v);
                db.put(key(r.nextInt(KEYS)), v);
            }
            db.flush(fo);
        }
    }

    private static void row(String name, long[] lat, double mib, double secs) {
        System.out.printf(
                "| %s | %.1f | %.1f | %.0f | %.0f | %.1f |%n",
                name, lat[lat.length / 2] / 1e3, lat[(int) (lat.length * 0.99)] / 1e3, rate, mib, secs);
    }

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes();
    }
}
