package dev.sluice.bench;

import dev.sluice.core.ConfigException;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.Bytes;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code sluice demo}: writes and reads a few hundred MB through the public API and prints one line per second from the
 * control plane's snapshot, so a user sees the LSM breathe (memtable watermark, L0 files, pending compaction, stalls).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        version = SluiceCli.VERSION,
        description = "Write and read a few hundred MB through the API, printing one snapshot line per second.",
        footer = {"", "Exit codes: 0 done; 1 the run failed; 2 bad arguments (checked before --dir is touched)."})
public final class DemoCommand implements Callable<Integer> {
    /** Threads are real threads: a thousand is already more than any demo needs. */
    static final int MAX_THREADS = 1024;

    /** The most --megabytes accepted (1 TiB of user data: far beyond a demo, far from overflowing a key count). */
    static final long MAX_MEGABYTES = 1L << 20;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @ParentCommand
    SluiceCli parent;

    @Option(
            names = "--dir",
            description = "Data directory (default: ${DEFAULT-VALUE}); a previous demo store there is replaced.")
    Path dir = Path.of("demo-data");

    @Option(names = "--megabytes", description = "User bytes to write (default: ${DEFAULT-VALUE}).")
    long megabytes = 300;

    @Option(names = "--value-bytes", description = "Value size (default: ${DEFAULT-VALUE}).")
    int valueBytes = 1024;

    @Option(names = "--writers", description = "Writer threads (default: ${DEFAULT-VALUE}).")
    int writers = 2;

    @Option(names = "--readers", description = "Reader threads doing random gets (default: ${DEFAULT-VALUE}).")
    int readers = 1;

    @Option(
            names = "--max-seconds",
            description = "Stop writing after this long even if not done (default: ${DEFAULT-VALUE}).")
    int maxSeconds = 120;

    @Option(names = "--profile", description = "Profile (default: ${DEFAULT-VALUE}).")
    String profile = "rocksdb-default";

    @Option(names = "--env", description = "auto, priority or default (default: ${DEFAULT-VALUE}).")
    String env = "auto";

    @Option(
            names = "--no-device",
            description = "Run on this machine's disk instead of the emulated cloud volume (20k IOPS, 200 MiB/s read,"
                    + " 40 MiB/s write, 100 us), which the demo uses by default so flushes and compactions compete the way"
                    + " they do on a cloud disk.")
    boolean noDevice;

    private PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        out = SluiceCli.of(parent).out;
        // Everything is checked before --dir is touched: bad input must not cost the previous demo store.
        if (megabytes <= 0 || megabytes > MAX_MEGABYTES) {
            throw bad("--megabytes " + megabytes + ": must be between 1 and " + MAX_MEGABYTES);
        }
        if (writers > MAX_THREADS || readers > MAX_THREADS) {
            throw bad("--writers " + writers + " --readers " + readers + ": at most " + MAX_THREADS + " each");
        }
        if (valueBytes <= 0 || writers <= 0 || readers < 0 || maxSeconds <= 0) {
            throw bad("--value-bytes, --writers and --max-seconds must be > 0 and --readers >= 0; got --value-bytes "
                    + valueBytes + " --writers " + writers + " --readers " + readers + " --max-seconds " + maxSeconds);
        }
        SluiceConfig config;
        try {
            SluiceConfig.Builder b = SluiceConfig.builder(dir).profile(profile).env(env);
            if (!noDevice && !env.equals("default")) {
                b.envOption("device.enabled", "true")
                        .envOption("device.iops", "20000")
                        .envOption("device.read.mbps", "200")
                        .envOption("device.write.mbps", "40")
                        .envOption("device.latency.us", "100");
            }
            config = b.build();
            Sluice.validate(config);
        } catch (ConfigException e) {
            throw bad("--profile " + profile + " --env " + env + ": " + e.getMessage());
        }
        if (valueBytes > config.maxValueBytes()) {
            throw bad("--value-bytes " + valueBytes + ": larger than the store's limit of " + config.maxValueBytes()
                    + " bytes per value");
        }
        prepareDir();
        long totalKeys = megabytes * 1024 * 1024 / (valueBytes + 16);
        try (SluiceNode node = Sluice.open(config)) {
            Files.writeString(dir.resolve(".sluice-demo"), "created by sluice demo\n");
            out.printf(
                    "Sluice demo: %d MB (%,d keys of 16 B + %d B values), %d writer%s, %d reader%s, profile %s, %s Env%s%n",
                    megabytes,
                    totalKeys,
                    valueBytes,
                    writers,
                    writers == 1 ? "" : "s",
                    readers,
                    readers == 1 ? "" : "s",
                    profile,
                    node.priorityEnv() ? "priority" : "RocksDB default",
                    config.envOptions().isEmpty() ? "" : ", emulated disk (40 MiB/s write)");
            Partition p = node.defaultPartition();
            AtomicLong nextKey = new AtomicLong();
            AtomicLong written = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            long start = System.nanoTime();
            node.controlPlane().addSnapshotListener(s -> {
                String l = line(s, start);
                if (!l.isEmpty()) {
                    out.println(l);
                }
            });
            Thread[] threads = new Thread[writers + readers];
            for (int w = 0; w < writers; w++) {
                int seed = w;
                threads[w] = new Thread(
                        () -> {
                            SplittableRandom rnd = new SplittableRandom(seed);
                            byte[] value = new byte[valueBytes];
                            long k;
                            while (!stop.get() && (k = nextKey.getAndIncrement()) < totalKeys) {
                                fill(rnd, value);
                                p.put(key(scramble(k)), value);
                                written.incrementAndGet();
                            }
                        },
                        "demo-writer-" + w);
            }
            for (int r = 0; r < readers; r++) {
                int seed = 100 + r;
                threads[writers + r] = new Thread(
                        () -> {
                            SplittableRandom rnd = new SplittableRandom(seed);
                            while (!stop.get()) {
                                long n = written.get();
                                if (n == 0) {
                                    Thread.onSpinWait();
                                    continue;
                                }
                                p.get(key(scramble(rnd.nextLong(n))));
                            }
                        },
                        "demo-reader-" + r);
            }
            for (Thread t : threads) {
                t.start();
            }
            long deadline = start + maxSeconds * 1_000_000_000L;
            while (written.get() < totalKeys && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            double secs = (System.nanoTime() - start) / 1e9;
            NodeSnapshot last = node.sample();
            LsmSnapshot s = last.partition(p.name());
            out.printf(
                    "done: %,d puts and %,d gets in %.1f s (%,.0f ops/s); write amplification %.2f; stalled %.1f s in total; SST %s in %d files%n",
                    s.ops().puts(),
                    s.ops().gets(),
                    secs,
                    s.ops().total() / secs,
                    s.writeAmplification(),
                    s.stallMicros() / 1e6,
                    Bytes.human(s.totalSstBytes()),
                    s.levels().stream().mapToInt(l -> l.fileCount()).sum());
        }
        return 0;
    }

    /** One line per tick: the fields a person watches. */
    static String line(NodeSnapshot n, long startNanos) {
        StringBuilder sb = new StringBuilder();
        for (LsmSnapshot s : n.partitions().values()) {
            if (s.intervalNanos() <= 0) {
                continue; // the first snapshot has no interval to compute rates over
            }
            sb.append(String.format(
                    "t=%4.0fs  ops/s=%,8.0f (put %,7.0f get %,7.0f)  watermark=%3.0f%%  imm=%d  L0=%2d  pending=%9s  flush/compact=%d/%d  stall=%s%n",
                    (System.nanoTime() - startNanos) / 1e9,
                    s.opsPerSecond(),
                    s.intervalNanos() <= 0 ? 0 : s.opsDelta().puts() / s.intervalSeconds(),
                    s.intervalNanos() <= 0 ? 0 : s.opsDelta().gets() / s.intervalSeconds(),
                    100 * s.memtableWatermark(),
                    s.immutableMemtables(),
                    s.l0Files(),
                    Bytes.human(s.pendingCompactionBytes()),
                    s.runningFlushes(),
                    s.runningCompactions(),
                    s.stall()));
        }
        return sb.toString().stripTrailing();
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private void prepareDir() throws IOException {
        try {
            dev.sluice.bench.runner.BenchRun.checkDirectory("--dir", dir);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        if (Files.exists(dir)) {
            if (!Files.exists(dir.resolve(".sluice-demo"))) {
                try (Stream<Path> s = Files.list(dir)) {
                    if (s.findAny().isPresent()) {
                        throw bad("--dir " + dir + " exists and was not made by sluice demo; choose another directory");
                    }
                }
            }
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path f : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(f);
                }
            }
        }
    }

    private static long scramble(long k) {
        return k * 0x9E3779B97F4A7C15L;
    }

    private static byte[] key(long k) {
        return ByteBuffer.allocate(16).putLong(k).putLong(~k).array();
    }

    private static void fill(SplittableRandom rnd, byte[] v) {
        for (int i = 0; i < v.length; i += 8) {
            long x = rnd.nextLong();
            for (int j = 0; j < 8 && i + j < v.length; j++) {
                v[i + j] = (byte) (x >>> (8 * j));
            }
        }
    }
}
