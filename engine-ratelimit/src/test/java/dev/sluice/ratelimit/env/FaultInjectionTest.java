package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static dev.sluice.ratelimit.env.NativeTestSupport.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.sensor.IoClass;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Injected faults reach the caller or RocksDB's background-error state with a clear message; after the fault is cleared
 * (and {@code resume()}), every acknowledged write is intact, including after a reopen.
 */
class FaultInjectionTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void walWriteErrorReachesTheCallerAndAcknowledgedWritesSurviveAReopen() throws Exception {
        Path dir = tmp.resolve("wal");
        List<Integer> acked = new ArrayList<>();
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("wal", dir);
            try (Options o = options(env, true);
                    RocksDB db = RocksDB.open(o, dir.toString())) {
                for (int i = 0; i < 200; i++) {
                    db.put(key(i), value(i, 100));
                    acked.add(i);
                }
                int rule = env.faults()
                        .inject(FaultRule.eio(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE))
                                .afterOps(5)
                                .maxFaults(1));
                RocksDBException failure = null;
                for (int i = 200; i < 400 && failure == null; i++) {
                    try {
                        db.put(key(i), value(i, 100));
                        acked.add(i);
                    } catch (RocksDBException e) {
                        failure = e;
                    }
                }
                assertThat(failure)
                        .as("the injected WAL error reaches the writer")
                        .isNotNull();
                assertThat(failure.getMessage())
                        .contains("sluice fault injection")
                        .contains("WAL write");
                assertThat(env.faults().hits(rule)).isEqualTo(1);
                assertThat(env.ioDetail().get(IoClass.WAL).faults()).isEqualTo(1);
                // a failed WAL write is a hard error: RocksDB refuses writes until the DB is reopened
                assertThatThrownBy(() -> db.put(key(9999), value(9999, 100))).isInstanceOf(RocksDBException.class);
                env.faults().clear();
            }
            // reopen through the same Env once the fault is gone: WAL recovery replays every acknowledged write
            try (Options o = options(env, true);
                    RocksDB db = RocksDB.open(o, dir.toString())) {
                assertIntact(db, acked, 100);
                for (int i = 1000; i < 1200; i++) {
                    db.put(key(i), value(i, 100));
                    acked.add(i);
                }
                assertIntact(db, acked, 100);
            }
        }
    }

    @Test
    void flushWriteErrorPutsTheDbInBackgroundErrorStateUntilReopened() throws Exception {
        Path dir = tmp.resolve("flush");
        List<Integer> acked = new ArrayList<>();
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("flush", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < 1000; i++) {
                    db.put(key(i), value(i, 200));
                    acked.add(i);
                }
                env.faults().inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE)));
                assertThatThrownBy(() -> db.flush(fo))
                        .isInstanceOf(RocksDBException.class)
                        .hasMessageContaining("sluice fault injection")
                        .hasMessageContaining("FLUSH write");
                // background-error state: writes are refused, naming the cause
                assertThatThrownBy(() -> db.put(key(5000), value(5000, 10)))
                        .isInstanceOf(RocksDBException.class)
                        .hasMessageContaining("sluice fault injection");
                env.faults().clear();
            }
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                assertIntact(db, acked, 200);
                for (int i = 1000; i < 1500; i++) {
                    db.put(key(i), value(i, 200));
                    acked.add(i);
                }
                db.flush(fo);
                assertIntact(db, acked, 200);
            }
        }
    }

    @Test
    void retryableFlushErrorIsRecoveredByRocksDbOnceTheFaultIsCleared() throws Exception {
        Path dir = tmp.resolve("retry");
        List<Integer> acked = new ArrayList<>();
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("retry", dir);
            try (Options o = options(env, false).setBgerrorResumeRetryInterval(100_000); // 100 ms between retries
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < 1000; i++) {
                    db.put(key(i), value(i, 200));
                    acked.add(i);
                }
                int rule = env.faults()
                        .inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE))
                                .retryable());
                RocksDBException flushError = null;
                try {
                    db.flush(fo);
                } catch (RocksDBException e) {
                    flushError = e;
                }
                assertThat(flushError).isNotNull();
                assertThat(flushError.getMessage()).contains("sluice fault injection");
                assertThat(env.faults().hits(rule)).isPositive();
                env.faults().clear();
                // A retryable flush error is a soft error: writes go on (WAL enabled) while RocksDB's automatic
                // resume retries the flush in the background. Wait (bounded) until a flush succeeds again.
                db.put(key(1000), value(1000, 200));
                acked.add(1000);
                long deadline = System.nanoTime() + 20_000_000_000L;
                boolean flushed = false;
                while (!flushed && System.nanoTime() < deadline) {
                    try {
                        db.flush(fo);
                        flushed = true;
                    } catch (RocksDBException e) {
                        assertThat(e.getMessage()).contains("sluice fault injection");
                        Thread.sleep(50);
                    }
                }
                assertThat(flushed).as("flush succeeds again after auto-resume").isTrue();
                assertThat(db.getLiveFilesMetaData()).isNotEmpty();
                assertIntact(db, acked, 200);
            }
        }
    }

    @Test
    void readErrorsAndDelaysFollowClassKindCountAndProbability() throws Exception {
        Path dir = tmp.resolve("read");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("read", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < 2000; i++) {
                    db.put(key(i), value(i, 200));
                }
                db.flush(fo);

                // EIO on SST reads of Gets: the Get fails with the message, other classes are unaffected
                int eio = env.faults()
                        .inject(FaultRule.eio(Set.of(IoClass.USER_GET), Set.of(FaultRule.Op.READ))
                                .withFileKinds(EnumSet.of(FaultRule.FileKind.SST))
                                .maxFaults(2));
                assertThatThrownBy(() -> db.get(key(10))).hasMessageContaining("sluice fault injection");
                assertThatThrownBy(() -> db.get(key(11))).hasMessageContaining("USER_GET read");
                assertThat(db.get(key(12))).isEqualTo(value(12, 200)); // maxFaults reached
                assertThat(env.faults().hits(eio)).isEqualTo(2);
                assertThat(env.faults().remove(eio)).isTrue();
                assertThat(env.faults().hits(eio)).isEqualTo(-1);

                // delays: each delayed Get takes at least the delay (a lower bound only)
                env.faults()
                        .inject(FaultRule.delay(
                                        Set.of(IoClass.USER_GET), Set.of(FaultRule.Op.READ), Duration.ofMillis(30))
                                .maxFaults(3));
                long t0 = System.nanoTime();
                for (int i = 0; i < 3; i++) {
                    assertThat(db.get(key(100 + i))).isNotNull();
                }
                assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(90_000_000L);
                env.faults().clear();

                // probability: about half of 400 matching reads fail
                int half = env.faults()
                        .inject(FaultRule.eio(Set.of(IoClass.USER_GET), Set.of(FaultRule.Op.READ))
                                .withProbability(0.5));
                int failed = 0;
                for (int i = 0; i < 400; i++) {
                    try {
                        db.get(key(i));
                    } catch (RocksDBException e) {
                        failed++;
                    }
                }
                assertThat(env.faults().hits(half)).isBetween(120L, 280L);
                assertThat(failed).isBetween(120, 280);
                env.faults().clear();
                assertThat(db.get(key(1))).isEqualTo(value(1, 200));
            }
        }
    }

    private static void assertIntact(RocksDB db, List<Integer> acked, int size) throws RocksDBException {
        for (int i : acked) {
            assertThat(db.get(key(i))).as("acknowledged key %d", i).isEqualTo(value(i, size));
        }
    }
}
