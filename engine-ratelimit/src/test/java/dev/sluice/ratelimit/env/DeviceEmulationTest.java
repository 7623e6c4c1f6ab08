package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * The emulated cloud volume (DEVICE.md): achieved IOPS and bandwidth match the contract within a tolerance, overdraft
 * produces the 1/IOPS punitive latency with W = L/A queueing, staying under the budget does not.
 */
class DeviceEmulationTest {
    private static final long UNIT = 256 * 1024;

    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    /**
     * A MultiRead of n requests is n operations and Σ per-request units for the scheduler and the device alike (it was
     * charged n × units(total bytes) ≈ n² units by the scheduler).
     */
    @Test
    void multiReadCostsTheSameUnitsInTheSchedulerAndTheDevice() throws Exception {
        Path dir = tmp.resolve("multiread");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                fill(db, 0, 20_000, 100);
                db.flush(fo);
                // 4 KiB units: every data block (~4 KiB + trailer) costs one or two units, so n² is easy to tell
                env.configureDevice(new ContractDevice(true, 0, 0, 0, Duration.ZERO, 0, 4096));
                env.setPolicy(dev.sluice.core.spi.IoPolicy.cruiseDb(Duration.ofMillis(50)));
                java.util.List<byte[]> keys = new java.util.ArrayList<>();
                for (int i = 0; i < 20_000; i += 400) {
                    keys.add(NativeTestSupport.key(i)); // 50 keys, each in a different data block
                }
                db.multiGetAsList(keys); // opens the table reader (index, filter reads) outside the measurement
                IoDetail ioBefore = env.ioDetail();
                DeviceStats devBefore = env.deviceStats();
                long unitsBefore = env.schedulerStats().grantedUnits();
                java.util.List<byte[]> values = db.multiGetAsList(keys);
                assertThat(values).allSatisfy(v -> assertThat(v).isNotNull());
                long schedUnits = env.schedulerStats().grantedUnits() - unitsBefore;
                DeviceStats dev = env.deviceStats().minus(devBefore);
                long ops = env.ioDetail().minus(ioBefore).get(IoClass.USER_GET).ops();
                assertThat(ops).as("one operation per request").isGreaterThanOrEqualTo(keys.size());
                assertThat(dev.units()).as("Σ units of the requests").isBetween(ops, 3 * ops);
                assertThat(schedUnits).as("scheduler units = device units").isEqualTo(dev.units());
            }
        }
    }

    @Test
    void achievedIopsMatchThePaidIopsAndOverdraftCostsLOverA() throws Exception {
        double iops = 400;
        int threads = 4;
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, iops, 0, 0, Duration.ofNanos(50_000), 0, UNIT));
            DeviceStats before;
            long t0;
            DeviceStats after;
            long t1;
            double budget;
            try (SyntheticLoad load =
                    new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, threads).start()) {
                SyntheticLoad.run(Duration.ofMillis(1200)); // past the first second's regular tokens + borrowing
                before = env.deviceStats();
                t0 = System.nanoTime();
                SyntheticLoad.run(Duration.ofMillis(2000));
                after = env.deviceStats();
                t1 = System.nanoTime();
                budget = env.budgetUse();
            }
            double secs = (t1 - t0) / 1e9;
            DeviceStats d = after.minus(before);
            assertThat(d.ops() / secs / iops).as("achieved / paid IOPS").isBetween(0.8, 1.2);
            assertThat(d.overdraftOps())
                    .as("submitted IOPS exceed the paid IOPS")
                    .isPositive();
            double punitive = 1e9 / iops;
            double queueing = threads * punitive; // W = L / A
            assertThat(d.meanOverdraftLatencyNanos()).isGreaterThanOrEqualTo(punitive);
            assertThat(d.meanOverdraftLatencyNanos() / queueing).isBetween(0.5, 1.5);
            assertThat(budget).as("budget use while saturated").isGreaterThan(0.8);
        }
    }

    @Test
    void underThePaidIopsThereIsNoOverdraftAndLatencyIsTheBaseLatency() throws Exception {
        double iops = 400;
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, iops, 0, 0, Duration.ofNanos(100_000), 0, UNIT));
            env.setClassLimit(IoClass.USER_GET, 0.5 * iops, 0); // submit half the paid IOPS
            try (SyntheticLoad load = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start()) {
                SyntheticLoad.run(Duration.ofMillis(1500));
            }
            DeviceStats d = env.deviceStats();
            assertThat(d.regularOps()).isGreaterThan(200);
            assertThat(d.overdraftOps()).isZero();
            assertThat(d.meanRegularLatencyNanos()).isEqualTo(100_000.0);
            // what the caller saw in the device: base latency plus sleep overshoot, far below 1/IOPS = 2.5 ms
            assertThat(env.ioDetail().get(IoClass.USER_GET).meanDeviceNanos()).isBetween(100_000.0, 1_500_000.0);
        }
    }

    @Test
    void writeAndReadBandwidthCapsHold() throws Exception {
        double write = 16.0 * (1 << 20);
        double read = 24.0 * (1 << 20);
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, 0, read, write, Duration.ZERO, 0, UNIT));
            DeviceStats before = env.deviceStats();
            long t0 = System.nanoTime();
            try (SyntheticLoad w = new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, UNIT, 2).start();
                    SyntheticLoad r =
                            new SyntheticLoad(env, IoClass.COMPACTION_HIGH, FaultRule.Op.READ, UNIT, 2).start()) {
                SyntheticLoad.run(Duration.ofMillis(1500));
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            DeviceStats d = env.deviceStats().minus(before);
            assertThat(d.writeBytes() / secs / write).isBetween(0.8, 1.15);
            assertThat(d.readBytes() / secs / read).isBetween(0.8, 1.15);
        }
    }

    @Test
    void rocksDbRunsOnTheEmulatedDeviceWithinItsContract() throws Exception {
        double iops = 300;
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("dev");
            env.registerPartition("dev", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                fill(db, 0, 3000, 500);
                db.flush(fo);
                // from here on every block read is an I/O against a 300-IOPS volume
                env.configureDevice(new ContractDevice(true, iops, 0, 0, Duration.ofNanos(100_000), 0, UNIT));
                long t0 = System.nanoTime();
                long reads = 0;
                try (RocksIterator it = db.newIterator()) {
                    for (it.seekToFirst(); it.isValid() && System.nanoTime() - t0 < 2_500_000_000L; it.next()) {
                        reads++;
                    }
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                DeviceStats d = env.deviceStats();
                assertThat(reads).isPositive();
                // one I/O unit per device op (4 KiB blocks); over the run at most A per second plus the borrowing pool
                assertThat(d.units()).isLessThanOrEqualTo((long) (iops * Math.ceil(secs) + iops + 10));
                assertThat(env.ioDetail().get(IoClass.USER_SCAN).ops()).isEqualTo(d.ops());
            }
        }
    }

    /**
     * RocksDB asks the file system for readahead hints before reading compaction input. Passed through, the input was
     * then read block by block, and every 4-16 KiB block was one emulated device I/O (compaction I/Os averaged 8.5 KiB
     * on cruise-a-variant). The Env now refuses hints while the device is on, so RocksDB reads ahead through it in 2 MiB
     * reads (chunked at 256 KiB).
     */
    @Test
    void compactionInputReachesTheDeviceInLargeReadsNotBlockByBlock() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            Path dir = tmp.resolve("ra");
            env.registerPartition("ra", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int f = 0; f < 4; f++) {
                    fill(db, 0, 4000, 1000); // ~4 MB per file, overlapping: the compaction must merge them
                    db.flush(fo);
                }
                env.configureDevice(new ContractDevice(true, 100_000, 0, 0, Duration.ofNanos(20_000), 0, UNIT));
                DeviceStats before = env.deviceStats();
                db.compactRange();
                DeviceStats d = env.deviceStats();
                long readBytes = d.readBytes() - before.readBytes();
                long ops = d.ops() - before.ops();
                assertThat(readBytes)
                        .as("compaction read its ~16 MB of input through the device")
                        .isGreaterThan(12_000_000);
                // block by block: > 16 MB / 16 KiB = 1,000 ops for the reads alone; with 2 MiB readahead chunked at
                // 256 KiB: ~64 read ops plus the writes
                assertThat(ops)
                        .as(
                                "device I/Os for %d bytes read, %d written",
                                readBytes, d.writeBytes() - before.writeBytes())
                        .isLessThan(readBytes / (64 * 1024));
            }
        }
    }
}
