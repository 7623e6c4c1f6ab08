package dev.sluice.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Batch;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cached read is never stale: writers (put, delete, batch) and readers (get, multiGet) run concurrently on a real
 * RocksDB with the Calcspar cache in front, and every read is checked against a model of what it may return.
 *
 * <p>Model: each key has one owner writer, which writes versions 1, 2, 3, ... of it; whether version x is a delete is a
 * pure function of (key, x). Before writing, the owner raises {@code issued[key]}; after the write returns (is
 * acknowledged), {@code acked[key]}. A read that starts after version lo was acknowledged and ends before version hi + 1
 * was issued must return a version in [lo, hi]: a value with version x ∈ [lo, hi] that is not a delete, or absent if
 * some x ∈ [lo, hi] is a delete (or x = 0, never written). Anything older than lo is a stale read.
 */
class CacheCoherenceTest {
    static final int KEYS = 48;
    static final int WRITERS = 3;
    static final int READERS = 4;

    @TempDir
    Path dir;

    static byte[] key(int k) {
        return String.format("key:%04d", k).getBytes(UTF_8);
    }

    static boolean isDelete(int k, long version) {
        return (version * 31 + k) % 5 == 0;
    }

    static byte[] value(int k, long version) {
        return ("k=" + k + ";v=" + version + ";" + "x".repeat(40)).getBytes(UTF_8);
    }

    static long versionOf(byte[] v) {
        String s = new String(v, UTF_8);
        int a = s.indexOf(";v=") + 3;
        return Long.parseLong(s.substring(a, s.indexOf(';', a)));
    }

    static SluiceConfig config(Path dir) {
        return SluiceConfig.builder(dir)
                .controls("calcspar-cache")
                .controlOption("calcspar-cache", "bytes", String.valueOf(4L << 20))
                .controlOption("calcspar-cache", "period.ms", "20")
                .tickPeriod(Duration.ofMillis(20))
                .build();
    }

    static double count(MeterRegistry r, String result) {
        return r.find("sluice.cache.requests").tag("result", result).functionCounters().stream()
                .mapToDouble(FunctionCounter::count)
                .sum();
    }

    /** Checks one read of key k that started after {@code lo} was acknowledged and ended before hi+1 was issued. */
    static String check(int k, byte[] v, long lo, long hi) {
        if (v != null) {
            long x = versionOf(v);
            if (x < lo || x > hi || isDelete(k, x)) {
                return "key " + k + ": read version " + x + " but the model allows [" + lo + ", " + hi + "]"
                        + (x < lo ? " (stale)" : "");
            }
            return null;
        }
        for (long x = lo; x <= hi; x++) {
            if (x == 0 || isDelete(k, x)) {
                return null;
            }
        }
        return "key " + k + ": read absent but every version in [" + lo + ", " + hi + "] is a value (stale)";
    }

    @Test
    void concurrentWritersAndReadersNeverSeeAStaleValue() throws Exception {
        AtomicLongArray issued = new AtomicLongArray(KEYS);
        AtomicLongArray acked = new AtomicLongArray(KEYS);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        try (SluiceNode node = Sluice.open(config(dir))) {
            Partition p = node.defaultPartition();
            List<Thread> threads = new ArrayList<>();
            CountDownLatch writersDone = new CountDownLatch(WRITERS);
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                threads.add(new Thread(
                        () -> {
                            Random rnd = new Random(id);
                            try {
                                for (int op = 0; op < 4000; op++) {
                                    int choice = rnd.nextInt(10);
                                    if (choice < 8) {
                                        int k = id + WRITERS * rnd.nextInt(KEYS / WRITERS);
                                        long x = issued.incrementAndGet(k);
                                        if (isDelete(k, x)) {
                                            p.delete(key(k), WriteMode.ASYNC);
                                        } else {
                                            p.put(key(k), value(k, x), WriteMode.ASYNC);
                                        }
                                        acked.set(k, x);
                                    } else {
                                        Batch b = new Batch();
                                        List<int[]> done = new ArrayList<>();
                                        for (int i = 0; i < 3; i++) {
                                            int k = id + WRITERS * rnd.nextInt(KEYS / WRITERS);
                                            long x = issued.incrementAndGet(k);
                                            if (isDelete(k, x)) {
                                                b.delete(key(k));
                                            } else {
                                                b.put(key(k), value(k, x));
                                            }
                                            done.add(new int[] {k, (int) x});
                                        }
                                        p.write(b, WriteMode.ASYNC);
                                        for (int[] kx : done) {
                                            acked.accumulateAndGet(kx[0], kx[1], Math::max);
                                        }
                                    }
                                    if (op % 1000 == 999) {
                                        p.flush(); // some reads come from SST files, not only memtables
                                    }
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            } finally {
                                writersDone.countDown();
                            }
                        },
                        "writer-" + w));
            }
            for (int r = 0; r < READERS; r++) {
                int id = r;
                threads.add(new Thread(
                        () -> {
                            Random rnd = new Random(100 + id);
                            try {
                                while (writing.get()) {
                                    if (rnd.nextInt(4) == 0) {
                                        int[] ks = {rnd.nextInt(KEYS), rnd.nextInt(KEYS), rnd.nextInt(KEYS)};
                                        long[] lo = new long[3];
                                        List<byte[]> keys = new ArrayList<>();
                                        for (int i = 0; i < 3; i++) {
                                            lo[i] = acked.get(ks[i]);
                                            keys.add(key(ks[i]));
                                        }
                                        List<byte[]> vs = p.multiGet(keys);
                                        for (int i = 0; i < 3; i++) {
                                            String v = check(ks[i], vs.get(i), lo[i], issued.get(ks[i]));
                                            if (v != null) {
                                                violations.add("multiGet " + v);
                                            }
                                        }
                                    } else {
                                        int k = rnd.nextInt(KEYS);
                                        long lo = acked.get(k);
                                        byte[] v = p.get(key(k));
                                        String bad = check(k, v, lo, issued.get(k));
                                        if (bad != null) {
                                            violations.add("get " + bad);
                                        }
                                    }
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        },
                        "reader-" + r));
            }
            threads.forEach(Thread::start);
            writersDone.await();
            writing.set(false);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(errors).isEmpty();
            assertThat(violations).as("stale or impossible reads").isEmpty();
            // after the writers stopped, every key reads exactly its last acknowledged version, twice (miss, then hit)
            for (int round = 0; round < 2; round++) {
                for (int k = 0; k < KEYS; k++) {
                    assertThat(check(k, p.get(key(k)), acked.get(k), acked.get(k)))
                            .as("final read of key %d", k)
                            .isNull();
                }
            }
            MeterRegistry reg = node.meterRegistry();
            assertThat(count(reg, "hit")).as("the cache answered reads").isGreaterThan(1000);
            assertThat(count(reg, "miss")).isPositive();
        }
    }

    @Test
    void reopenAfterCloseReadsWhatIsStoredNotWhatWasCached() throws Exception {
        try (SluiceNode node = Sluice.open(config(dir))) {
            Partition p = node.defaultPartition();
            for (int k = 0; k < KEYS; k++) {
                p.put(key(k), value(k, 1), WriteMode.ASYNC);
                assertThat(versionOf(p.get(key(k)))).isEqualTo(1); // cached now
                assertThat(versionOf(p.get(key(k)))).isEqualTo(1);
            }
            p.write(new Batch().put(key(0), value(0, 2)).delete(key(1)), WriteMode.SYNC);
            assertThat(versionOf(p.get(key(0)))).isEqualTo(2);
            assertThat(p.get(key(1))).isNull();
            assertThat(count(node.meterRegistry(), "hit")).isGreaterThanOrEqualTo(KEYS);
        }
        try (SluiceNode node = Sluice.open(config(dir))) {
            Partition p = node.defaultPartition();
            assertThat(count(node.meterRegistry(), "hit")).isZero();
            assertThat(versionOf(p.get(key(0)))).isEqualTo(2);
            assertThat(p.get(key(1))).isNull();
            for (int k = 2; k < KEYS; k++) {
                assertThat(versionOf(p.get(key(k)))).isEqualTo(1);
            }
            p.put(key(1), value(1, 3), WriteMode.ASYNC);
            assertThat(versionOf(p.get(key(1)))).isEqualTo(3);
            p.delete(key(2), WriteMode.ASYNC);
            assertThat(p.get(key(2))).isNull();
            assertThat(p.multiGet(List.of(key(1), key(2), key(3))))
                    .satisfiesExactly(
                            v -> assertThat(versionOf(v)).isEqualTo(3),
                            v -> assertThat(v).isNull(),
                            v -> assertThat(versionOf(v)).isEqualTo(1));
        }
    }
}
