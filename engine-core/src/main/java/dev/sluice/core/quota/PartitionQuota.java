package dev.sluice.core.quota;

import dev.sluice.core.ConfigException;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.config.OptionValues;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One partition's quota (FlexEngine §2.1): {@code rcu} read units and {@code wcu} write units per second, 0 meaning
 * unlimited; what happens over quota ({@link OverQuota#THROTTLE}: wait in the partition's admission queue, at most
 * {@code maxWait}, else refused; {@link OverQuota#REFUSE}: {@link dev.sluice.core.QuotaExceededException} at once); and
 * the burst a tenant may save up while idle. Immutable; the canonical constructor validates and names the bad field.
 *
 * <p>Configured as {@code partition.<name>.<key>} (see {@link #OPTIONS}) or with {@code
 * SluiceConfig.Builder.quota(name, quota)}; changed on a live node with {@code Partition.setQuota}.
 */
public record PartitionQuota(double rcu, double wcu, OverQuota overQuota, Duration maxWait, Duration burst) {
    /** Bytes one read unit covers (FlexEngine §2.1). */
    public static final int RCU_BYTES = 4096;
    /** Bytes one write unit covers (FlexEngine §2.1). */
    public static final int WCU_BYTES = 1024;

    /** What a request over quota gets. */
    public enum OverQuota {
        THROTTLE,
        REFUSE
    }

    /**
     * The smallest non-zero quota (units per second). A smaller positive one overflowed the bucket's clock (a 1e-300
     * WCU quota refused with "it would wait 0 ms > 1000"; probe, 2026-11-28).
     */
    static final double MIN_UNITS = 0.001;

    public static final Option<Double> RCU = Option.rateOption(
            "rcu",
            0,
            MIN_UNITS,
            1e9,
            "RCU/s",
            "Read capacity units per second (a read of up to 4 KiB = 1 RCU); 0 = no limit.");
    public static final Option<Double> WCU = Option.rateOption(
            "wcu",
            0,
            MIN_UNITS,
            1e9,
            "WCU/s",
            "Write capacity units per second (a write of up to 1 KiB = 1 WCU); 0 = no limit.");
    public static final Option<String> OVER_QUOTA = Option.choiceOption(
            "over.quota",
            "throttle",
            List.of("throttle", "refuse"),
            "Over quota: throttle = wait in the partition's admission queue (up to quota.max.wait.ms, then"
                    + " QuotaExceededException); refuse = QuotaExceededException at once.");
    public static final Option<Duration> MAX_WAIT = Option.millisOption(
            "quota.max.wait.ms",
            Duration.ofSeconds(1),
            Duration.ZERO,
            Duration.ofMinutes(1),
            "Longest a throttled request waits for its quota before QuotaExceededException.");
    public static final Option<Duration> BURST = Option.millisOption(
            "quota.burst.ms",
            Duration.ofSeconds(1),
            Duration.ofMillis(1),
            Duration.ofMinutes(5),
            "Unused quota a tenant may save while idle, as this much time at its rate (spent at once afterwards). A write"
                    + " larger than the burst waits for its units beyond it; one larger than the burst plus"
                    + " quota.max.wait.ms at the rate (with over.quota = refuse: the burst) is refused. A quota under"
                    + " which one unit does not fit is refused when configured.");

    /** The per-partition keys, each under {@code partition.<name>.}. */
    public static final OptionSet OPTIONS = OptionSet.of(RCU, WCU, OVER_QUOTA, MAX_WAIT, BURST);

    /** No quota: every request goes through at once. */
    public static final PartitionQuota UNLIMITED = new PartitionQuota(0, 0, OverQuota.THROTTLE, null, null);

    public PartitionQuota {
        RCU.check(rcu);
        WCU.check(wcu);
        if (overQuota == null) {
            throw new ConfigException("quota: overQuota must not be null");
        }
        maxWait = maxWait == null ? MAX_WAIT.defaultValue() : MAX_WAIT.check(maxWait);
        burst = burst == null ? BURST.defaultValue() : BURST.check(burst);
        // a request pays before it runs: a quota under which not even one unit fits in the burst plus the wait would
        // refuse every request for ever (a README walkthrough, 2026-11-29: wcu = 1, burst 1 ms, refuse)
        double window = admitSeconds(overQuota, maxWait, burst);
        for (String key : List.of("rcu", "wcu")) {
            double rate = key.equals("rcu") ? rcu : wcu;
            if (rate > 0 && rate * window < 1) {
                throw new ConfigException("quota: " + key + " = " + Option.number(rate) + " with quota.burst.ms = "
                        + burst.toMillis()
                        + (overQuota == OverQuota.THROTTLE
                                ? " and quota.max.wait.ms = " + maxWait.toMillis()
                                : " and over.quota = refuse")
                        + " admits no request: one unit takes " + Option.number(1 / rate) + " s at that rate;"
                        + " raise the rate, quota.burst.ms"
                        + (overQuota == OverQuota.THROTTLE ? " or quota.max.wait.ms" : " (or throttle)"));
            }
        }
    }

    /**
     * The most units of {@code rate} one request can ever take: a request pays before it runs, so it may use the
     * burst plus, when throttled, the longest wait ({@code rate × (burst + maxWait)}; with {@code refuse} the burst
     * alone). Infinite for an unlimited rate (0).
     */
    public double largestRequest(double rate) {
        return rate > 0 ? rate * admitSeconds(overQuota, maxWait, burst) : Double.POSITIVE_INFINITY;
    }

    private static double admitSeconds(OverQuota overQuota, Duration maxWait, Duration burst) {
        return (burst.toNanos() + (overQuota == OverQuota.THROTTLE ? maxWait.toNanos() : 0)) / 1e9;
    }

    /** A throttling quota with default wait bound and burst. */
    public static PartitionQuota of(double rcu, double wcu) {
        return new PartitionQuota(rcu, wcu, OverQuota.THROTTLE, null, null);
    }

    public PartitionQuota refusing() {
        return new PartitionQuota(rcu, wcu, OverQuota.REFUSE, maxWait, burst);
    }

    public PartitionQuota throttling(Duration maxWait) {
        return new PartitionQuota(rcu, wcu, OverQuota.THROTTLE, maxWait, burst);
    }

    public PartitionQuota withBurst(Duration burst) {
        return new PartitionQuota(rcu, wcu, overQuota, maxWait, burst);
    }

    public boolean unlimited() {
        return rcu == 0 && wcu == 0;
    }

    /**
     * Parses the keys given for one partition ({@code key → value}, without the {@code partition.<name>.} prefix).
     * Throws {@link ConfigException} naming the full key on an unknown key or bad value.
     */
    public static PartitionQuota parse(String partition, Map<String, String> given) {
        if (partition == null || given == null) {
            throw new ConfigException("quota: partition and options must not be null");
        }
        OptionValues v = OPTIONS.parse("partition." + partition + ".", given);
        try {
            return newQuota(v);
        } catch (ConfigException e) {
            throw new ConfigException("partition." + partition + ".* " + e.getMessage());
        }
    }

    private static PartitionQuota newQuota(OptionValues v) {
        return new PartitionQuota(
                v.get(RCU),
                v.get(WCU),
                OverQuota.valueOf(v.get(OVER_QUOTA).toUpperCase(Locale.ROOT)),
                v.get(MAX_WAIT),
                v.get(BURST));
    }

    /** Read units of a read that returned {@code bytes} (key + value bytes): at least one. */
    public static long readUnits(long bytes) {
        return Math.max(1, (bytes + RCU_BYTES - 1) / RCU_BYTES);
    }

    /** Write units of a write of {@code bytes} (key + value bytes): at least one. */
    public static long writeUnits(long bytes) {
        return Math.max(1, (bytes + WCU_BYTES - 1) / WCU_BYTES);
    }
}
