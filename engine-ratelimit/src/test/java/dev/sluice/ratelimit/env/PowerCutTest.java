package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static dev.sluice.ratelimit.env.NativeTestSupport.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * {@link PriorityEnv#powerCut()} on real RocksDB: what was fsynced survives a reopen with a new Env, what was only
 * written (page cache) is gone, and the "machine" refuses every write after the cut.
 */
class PowerCutTest {
    private static final int N = 300;
    private static final int SIZE = 200;

    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void syncedWritesSurviveAndUnsyncedWritesAreLost() throws Exception {
        Path dir = tmp.resolve("db");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", dir);
            Options o = options(env, false);
            RocksDB db = RocksDB.open(o, dir.toString());
            try (WriteOptions sync = new WriteOptions().setSync(true);
                    WriteOptions async = new WriteOptions().setSync(false)) {
                for (int i = 0; i < N; i++) {
                    db.put(sync, key(i), value(i, SIZE)); // [0, N): SYNC
                }
                for (int i = N; i < 2 * N; i++) {
                    db.put(async, key(i), value(i, SIZE)); // [N, 2N): ASYNC, after the last sync
                }
                PriorityEnv.PowerCut cut = env.powerCut();
                assertThat(cut.filesTruncated())
                        .as("the WAL lost its unsynced tail")
                        .isPositive();
                assertThat(cut.bytesDropped()).isGreaterThanOrEqualTo((long) N * SIZE);
                assertThat(env.poweredOff()).isTrue();
                assertThatThrownBy(() -> db.put(sync, key(9999), value(9999, SIZE)))
                        .isInstanceOf(RocksDBException.class)
                        .hasMessageContaining("sluice power cut");
            }
            closeQuietly(db, o);
        }
        try (PriorityEnv env = PriorityEnv.open();
                Options o = options(env, false);
                RocksDB db = RocksDB.open(o, dir.toString())) {
            for (int i = 0; i < N; i++) {
                assertThat(db.get(key(i))).as("SYNC write %d", i).isEqualTo(value(i, SIZE));
            }
            long lost = countMissing(db, N, 2 * N);
            assertThat(lost).as("ASYNC writes after the last sync are lost").isEqualTo(N);
            // the store is usable again
            db.put(key(5000), value(5000, SIZE));
            assertThat(db.get(key(5000))).isEqualTo(value(5000, SIZE));
        }
    }

    @Test
    void flushedTablesSurviveAndTheUnsyncedWalTailDoesNot() throws Exception {
        Path dir = tmp.resolve("flushed");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", dir);
            Options o = options(env, false);
            RocksDB db = RocksDB.open(o, dir.toString());
            try (WriteOptions async = new WriteOptions().setSync(false);
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < N; i++) {
                    db.put(async, key(i), value(i, SIZE));
                }
                db.flush(fo); // the table file and the MANIFEST are fsynced
                for (int i = N; i < 2 * N; i++) {
                    db.put(async, key(i), value(i, SIZE));
                }
                assertThat(env.trackedFiles()).isPositive();
                env.powerCut();
            }
            closeQuietly(db, o);
        }
        try (PriorityEnv env = PriorityEnv.open();
                Options o = options(env, false);
                RocksDB db = RocksDB.open(o, dir.toString())) {
            assertThat(countMissing(db, 0, N)).as("flushed (fsynced) keys").isZero();
            assertThat(countMissing(db, N, 2 * N)).as("unsynced WAL tail").isEqualTo(N);
        }
    }

    @Test
    void everyMutationFailsAfterTheCutAndCloseDoesNotHang() throws Exception {
        Path dir = tmp.resolve("off");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", dir);
            Options o = options(env, true);
            RocksDB db = RocksDB.open(o, dir.toString());
            for (int i = 0; i < N; i++) {
                db.put(key(i), value(i, SIZE));
            }
            env.powerCut();
            try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                assertThatThrownBy(() -> db.flush(fo)).isInstanceOf(RocksDBException.class);
            }
            assertThatThrownBy(() -> db.put(key(1), value(1, SIZE)))
                    .isInstanceOf(RocksDBException.class)
                    .hasMessageContaining("sluice power cut");
            // closing with the machine off reports errors but returns
            CompletableFuture<Void> close = CompletableFuture.runAsync(() -> closeQuietly(db, o));
            close.get(60, TimeUnit.SECONDS);
            // no file of the store grew back after the cut (no file this Env wrote has unsynced bytes)
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.filter(p -> p.getFileName().toString().endsWith(".log")))
                        .allSatisfy(p -> assertThat(Files.size(p)).isZero());
            }
        }
        try (PriorityEnv env = PriorityEnv.open();
                Options o = options(env, false);
                RocksDB db = RocksDB.open(o, dir.toString())) {
            assertThat(countMissing(db, 0, N)).as("nothing was ever synced").isEqualTo(N);
        }
    }

    private static long countMissing(RocksDB db, int from, int to) throws RocksDBException {
        long missing = 0;
        for (int i = from; i < to; i++) {
            byte[] v = db.get(key(i));
            if (v == null) {
                missing++;
            } else {
                assertThat(Arrays.equals(v, value(i, SIZE)))
                        .as("key %d intact", i)
                        .isTrue();
            }
        }
        return missing;
    }

    private static void closeQuietly(RocksDB db, Options o) {
        try {
            db.closeE();
        } catch (RocksDBException expected) {
            // the machine is off: close errors are expected
        }
        o.close();
    }
}
