package dev.sluice.bench.profile;

import dev.sluice.core.Profiles;
import dev.sluice.core.spi.Profile;
import java.lang.ref.Cleaner;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RateLimiter;
import org.rocksdb.RateLimiterMode;

/**
 * "Auto-tuned RocksDB" (AT-RDB in CruiseDB §VIII, "Autotuned RocksDB" in Calcspar §5.1): stock options ({@code
 * rocksdb-default}) plus RocksDB's own {@link RateLimiter} in auto-tune mode, charging flush and compaction writes
 * ({@code WRITES_ONLY}). With auto-tuning RocksDB moves the effective rate inside {@code [rate/20, rate]} every 100
 * refill periods, raising it while background writes are being throttled and lowering it when they are not.
 *
 * <p><b>Rate.</b> The upper bound is the system property {@value #RATE_PROPERTY} in bytes/s, default {@value
 * #DEFAULT_RATE_BYTES_PER_SEC} (128 MiB/s). The shipped scenarios set it per stack ({@code sysprop.…}) to the emulated
 * device's write bandwidth, the usual advice for this limiter. Other fixed parameters: refill period 100 ms (RocksDB's
 * default), fairness 10.
 *
 * <p><b>Lifetime.</b> {@code Options.setRateLimiter} copies RocksDB's {@code shared_ptr} into the native options, and
 * the DB copies it again when it opens, so the native limiter lives as long as either needs it. The Java wrapper holds
 * one more reference; it stays reachable through the {@code Options} object (which keeps it in a field) and is closed
 * by a {@link Cleaner} once that {@code Options} object is unreachable — after the partition closed its DB and options.
 *
 * <p>Lives in jmh-bench because only the benchmarks need it; registered in {@code META-INF/services}.
 */
public final class AutoTunedRateLimiterProfile implements Profile {
    public static final String NAME = "rocksdb-autotuned-ratelimiter";
    public static final String RATE_PROPERTY = "sluice.autotuned.rate.bytes.per.sec";
    public static final long DEFAULT_RATE_BYTES_PER_SEC = 134_217_728L;
    static final long REFILL_PERIOD_MICROS = 100_000;
    static final int FAIRNESS = 10;

    private static final Cleaner CLEANER = Cleaner.create();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Stock RocksDB plus its auto-tuned RateLimiter on flush/compaction writes (WRITES_ONLY, upper bound"
                + " -D" + RATE_PROPERTY + ", default 128 MiB/s, tuned within [bound/20, bound]); CruiseDB's AT-RDB"
                + " baseline.";
    }

    /** The configured upper bound in bytes/s. */
    public static long rateBytesPerSecond() {
        return rateBytesPerSecond(System.getProperty(RATE_PROPERTY));
    }

    /**
     * The upper bound a value of {@value #RATE_PROPERTY} sets (null or blank: the default).
     *
     * @throws IllegalArgumentException naming the property when the value is not a whole number of at least 1 MiB/s
     */
    public static long rateBytesPerSecond(String v) {
        if (v == null || v.isBlank()) {
            return DEFAULT_RATE_BYTES_PER_SEC;
        }
        long r;
        try {
            r = Long.parseLong(v.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "-D" + RATE_PROPERTY + " = '" + v + "' is not a whole number of bytes/s");
        }
        if (r < 1024 * 1024) {
            throw new IllegalArgumentException("-D" + RATE_PROPERTY + " = " + r + " is below 1 MiB/s");
        }
        return r;
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        Profiles.get("rocksdb-default").apply(options, tableConfig);
        RateLimiter limiter = new RateLimiter(
                rateBytesPerSecond(), REFILL_PERIOD_MICROS, FAIRNESS, RateLimiterMode.WRITES_ONLY, true);
        options.setRateLimiter(limiter);
        CLEANER.register(options, limiter::close);
    }
}
