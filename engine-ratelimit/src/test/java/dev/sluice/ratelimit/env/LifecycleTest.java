package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.key;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static dev.sluice.ratelimit.env.NativeTestSupport.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import dev.sluice.core.spi.StorageEnv;
import dev.sluice.core.spi.StorageEnvProvider;
import java.io.File;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** Open/close cycles without crash or leak, close semantics, and discovery through ServiceLoader. */
class LifecycleTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void repeatedOpenAndCloseKeepsTheOpenFileCountStable() throws Exception {
        cycle(tmp.resolve("warmup")); // first cycle loads libraries and opens the JVM's own files
        long before = openFds();
        for (int i = 0; i < 15; i++) {
            cycle(tmp.resolve("cycle" + i));
        }
        long after = openFds();
        assertThat(after - before).as("open file descriptors after 15 cycles").isLessThanOrEqualTo(4);
    }

    private static void cycle(Path dir) throws Exception {
        try (PriorityEnv env = PriorityEnv.open(
                PriorityEnvConfig.defaults().withPolicy(IoPolicy.cruiseDb(java.time.Duration.ofMillis(10))))) {
            env.registerPartition("p", dir);
            try (Options o = options(env, true);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                fill(db, 0, 300, 100);
                db.flush(fo);
                assertThat(db.get(key(7))).isEqualTo(value(7, 100));
            }
            assertThat(env.ioStats("p").orElseThrow().get(IoClass.FLUSH).ops()).isPositive();
        } // close order: DB, Options, then the Env
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseFailsClearly() {
        PriorityEnv env = PriorityEnv.open();
        env.close();
        env.close();
        assertThat(env.env().isOwningHandle()).isFalse();
        assertThatThrownBy(env::ioStats)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> env.setClassLimit(IoClass.WAL, 1, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void unknownPartitionIsRejectedWithItsName() {
        try (PriorityEnv env = PriorityEnv.open()) {
            assertThatThrownBy(() -> env.updateFileLevels("nope", Map.of(1L, 0)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'nope'");
        }
    }

    @Test
    void providerIsFoundByNameAndOpensFromOptions() throws Exception {
        Optional<StorageEnvProvider> found = ServiceLoader.load(StorageEnvProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("priority"))
                .findFirst();
        assertThat(found).isPresent();
        StorageEnvProvider provider = found.get();
        assertThat(provider.unavailableReason()).isEmpty();
        assertThat(provider.options().names())
                .contains("device.enabled", "device.iops", "policy", "limit.user_get.ops");
        try (StorageEnv env = provider.open(Map.of(
                "policy", "calcspar", "device.enabled", "true", "device.iops", "1000", "limit.wal.mbps", "50"))) {
            assertThat(env.control()).isPresent();
            assertThat(env.control().get().policy()).isInstanceOf(IoPolicy.TimeWindows.class);
            assertThat(((IoPolicy.TimeWindows) env.control().get().policy()).paidIops())
                    .isEqualTo(1000);
            assertThat(((PriorityEnv) env).device().paidIops()).isEqualTo(1000);
            Path dir = tmp.resolve("svc");
            env.registerPartition("svc", dir);
            try (Options o = new Options().setCreateIfMissing(true).setEnv(env.env());
                    RocksDB db = RocksDB.open(o, dir.toString())) {
                db.put(key(1), value(1, 10));
            }
            assertThat(env.ioStats().get(IoClass.WAL).ops()).isPositive();
            assertThat(env.budgetUse()).isBetween(0.0, 10.0);
        }
    }

    private static long openFds() {
        String[] entries = new File("/proc/self/fd").list();
        return entries == null ? -1 : entries.length;
    }
}
