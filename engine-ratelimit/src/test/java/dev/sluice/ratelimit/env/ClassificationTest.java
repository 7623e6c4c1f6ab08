package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.pushLevels;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoStats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.CompactionOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/** Each I/O class is observed from the RocksDB operation that should cause it, on real RocksDB with the native Env. */
class ClassificationTest {
    private static final Set<IoClass> COMPACTIONS =
            EnumSet.of(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP);

    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void openWritesMetaPutsWriteWalFlushWritesFlushReadsAreUserClasses() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("p");
            env.registerPartition("p", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true);
                    WriteOptions sync = new WriteOptions().setSync(true)) {
                IoDetail afterOpen = env.ioDetail();
                assertThat(afterOpen.get(IoClass.META).ops())
                        .as("MANIFEST/OPTIONS/CURRENT at open")
                        .isPositive();

                fill(db, 0, 2000, 200);
                db.put(sync, key(5000), new byte[10]);
                IoDetail afterPuts = env.ioDetail().minus(afterOpen);
                assertThat(afterPuts.get(IoClass.WAL).ops()).isPositive();
                assertThat(afterPuts.get(IoClass.WAL).bytes()).isGreaterThan(2000L * 200);
                assertThat(afterPuts.get(IoClass.WAL).syncOps())
                        .as("sync write")
                        .isPositive();
                assertThat(afterPuts.get(IoClass.FLUSH).ops()).isZero();

                IoDetail before = env.ioDetail();
                db.flush(fo);
                IoDetail flush = env.ioDetail().minus(before);
                assertThat(flush.get(IoClass.FLUSH).bytes()).isGreaterThan(2000L * 200);
                for (IoClass c : COMPACTIONS) {
                    assertThat(flush.get(c).ops()).as(c + " during a flush").isZero();
                }

                before = env.ioDetail();
                for (int i = 0; i < 200; i++) {
                    assertThat(db.get(key(i * 7))).isNotNull();
                }
                IoDetail gets = env.ioDetail().minus(before);
                assertThat(gets.get(IoClass.USER_GET).ops())
                        .as("Get reads (no block cache)")
                        .isGreaterThanOrEqualTo(200);
                assertThat(gets.get(IoClass.USER_SCAN).ops()).isZero();
                assertThat(gets.get(IoClass.PREFETCH).ops()).isZero();

                before = env.ioDetail();
                List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    keys.add(key(i * 31));
                }
                assertThat(db.multiGetAsList(keys)).allMatch(v -> v != null);
                IoDetail multi = env.ioDetail().minus(before);
                assertThat(multi.get(IoClass.USER_GET).ops())
                        .as("multiGet reads")
                        .isPositive();

                before = env.ioDetail();
                int n = 0;
                try (RocksIterator it = db.newIterator()) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        n++;
                    }
                }
                assertThat(n).isEqualTo(2001);
                IoDetail scan = env.ioDetail().minus(before);
                assertThat(scan.get(IoClass.USER_SCAN).bytes()).isGreaterThan(2000L * 200);
                assertThat(scan.get(IoClass.USER_GET).ops()).isZero();

                // The Calcspar cache's prefetcher runs on threads named sluice-prefetch-*: their reads are PREFETCH.
                before = env.ioDetail();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread t = new Thread(
                        () -> {
                            try {
                                for (int i = 0; i < 100; i++) {
                                    db.get(key(i * 3));
                                }
                            } catch (Throwable e) {
                                failure.set(e);
                            }
                        },
                        "sluice-prefetch-1");
                t.start();
                t.join();
                assertThat(failure.get()).isNull();
                IoDetail prefetch = env.ioDetail().minus(before);
                assertThat(prefetch.get(IoClass.PREFETCH).ops()).isGreaterThanOrEqualTo(100);
                assertThat(prefetch.get(IoClass.USER_GET).ops()).isZero();
            }
            IoStats node = env.ioStats();
            assertThat(node.source()).isEqualTo(IoStats.Source.ENV);
            assertThat(env.ioStats("p"))
                    .hasValueSatisfying(s -> assertThat(s.get(IoClass.WAL).ops())
                            .isEqualTo(node.get(IoClass.WAL).ops()));
        }
    }

    @Test
    void compactionIsSplitByLevelUsingThePushedLevelMap() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("levels");
            env.registerPartition("levels", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true);
                    CompactionOptions co = new CompactionOptions()) {
                // range A: flush to L0, then L0 -> L2
                fill(db, 0, 3000, 300);
                db.flush(fo);
                pushLevels(env, "levels", db);
                IoDetail before = env.ioDetail();
                db.compactFiles(co, filesAt(db, 0), 2, -1, null);
                assertOnlyCompactionClass(env.ioDetail().minus(before), IoClass.COMPACTION_L0);

                // range B (disjoint): flush to L0, then L0 -> L1, so L1 (the base level) holds files
                fill(db, 10_000, 13_000, 300);
                db.flush(fo);
                pushLevels(env, "levels", db);
                db.compactFiles(co, filesAt(db, 0), 1, -1, null);
                pushLevels(env, "levels", db);

                // L2 -> L3 is deep
                before = env.ioDetail();
                db.compactFiles(co, filesAt(db, 2), 3, -1, null);
                assertOnlyCompactionClass(env.ioDetail().minus(before), IoClass.COMPACTION_DEEP);
                pushLevels(env, "levels", db);

                // L1 -> L2 is high
                before = env.ioDetail();
                db.compactFiles(co, filesAt(db, 1), 2, -1, null);
                assertOnlyCompactionClass(env.ioDetail().minus(before), IoClass.COMPACTION_HIGH);

                for (int i = 0; i < 3000; i += 97) {
                    assertThat(db.get(key(i))).isNotNull();
                    assertThat(db.get(key(10_000 + i))).isNotNull();
                }
            }
        }
    }

    @Test
    void ioIsAttributedToPartitionsByDirectory() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path d1 = tmp.resolve("one");
            Path d2 = tmp.resolve("two");
            env.registerPartition("one", d1);
            env.registerPartition("two", d2);
            assertThat(env.partitions()).containsExactlyInAnyOrder("one", "two");
            try (Options o = options(env, false);
                    RocksDB db1 = RocksDB.open(o, d1.toString());
                    RocksDB db2 = RocksDB.open(o, d2.toString())) {
                fill(db1, 0, 500, 100);
                IoStats one = env.ioStats("one").orElseThrow();
                IoStats two = env.ioStats("two").orElseThrow();
                assertThat(one.get(IoClass.WAL).bytes()).isGreaterThan(500L * 100);
                assertThat(two.get(IoClass.WAL).bytes()).isZero();
                assertThat(two.get(IoClass.META).ops()).as("db two's open").isPositive();
                assertThat(env.unattributedIoDetail().get(IoClass.WAL).ops()).isZero();
                assertThat(env.ioStats().get(IoClass.WAL).bytes())
                        .isEqualTo(one.get(IoClass.WAL).bytes()
                                + two.get(IoClass.WAL).bytes());
            }
            assertThat(env.ioStats("three")).isEmpty();
        }
    }

    private static void assertOnlyCompactionClass(IoDetail delta, IoClass expected) {
        assertThat(delta.get(expected).ops()).as(expected + " ops").isPositive();
        assertThat(delta.get(expected).bytes()).as(expected + " bytes").isGreaterThan(100_000);
        for (IoClass c : COMPACTIONS) {
            if (c != expected) {
                assertThat(delta.get(c).ops())
                        .as(c + " while expecting " + expected)
                        .isZero();
            }
        }
    }

    private static List<String> filesAt(RocksDB db, int level) {
        List<String> names = new ArrayList<>();
        db.getLiveFilesMetaData().stream()
                .filter(f -> f.level() == level)
                .sorted(Comparator.comparing(LiveFileMetaData::fileName))
                .forEach(f -> names.add(f.fileName()));
        assertThat(names).as("files at L" + level).isNotEmpty();
        return names;
    }
}
