package dev.sluice.cache;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;

/**
 * {@code controls = ..., calcspar-cache}: puts one {@link CalcsparCache} of {@code control.calcspar-cache.bytes} in
 * front of every partition's point reads and runs its {@link CacheController}.
 */
public final class CalcsparCacheProvider implements ControlLoopProvider {
    public static final String NAME = "calcspar-cache";

    static final Option<Long> BYTES = Option.longOption(
            "bytes",
            64L << 20,
            1L << 20,
            1L << 40,
            "bytes",
            "capacity of the cache space (keys + values + 8 B/entry + 192 B/range)");
    static final Option<Long> BLOCK_BYTES = Option.longOption(
            "block.bytes",
            256L << 10,
            4L << 10,
            1L << 30,
            "bytes",
            "SST data per hotness block (Calcspar's EBS block)");
    static final Option<Double> PAID_IOPS = Option.doubleOption(
            "paid.iops",
            3000,
            1,
            1e9,
            "IOPS",
            "paid IOPS the token use is measured against; set it to env.device.iops");
    static final Option<Long> IO_UNIT_KB = Option.longOption(
            "io.unit.kb", 256, 1, 65536, "KiB", "I/O size that costs one token; set it to env.device.io.unit.kb");
    static final Option<Double> PASSIVE_THRESHOLD = Option.doubleOption(
            "passive.threshold",
            0.95,
            0.01,
            10,
            "fraction",
            "passive mode when the top queue used more than this fraction of the paid tokens in the last tick");
    static final Option<Integer> PROACTIVE_TICKS = Option.intOption(
            "proactive.ticks",
            5,
            1,
            1_000_000,
            "ticks",
            "after passive mode, proactive again only after this many consecutive control ticks with the top queue at"
                    + " or below passive.threshold (1 = at the first, the paper's rule, which switched the mode about"
                    + " every tick when the load alternated around the threshold)");
    static final Option<Double> PREFETCH_SHARE = Option.doubleOption(
            "prefetch.share", 0.8, 0, 1, "fraction", "fraction of the spare tokens the prefetcher may spend");
    static final Option<Double> ALPHA = Option.doubleOption(
            "alpha", 0.5, 0.01, 1, "", "exponential smoothing weight of the last period's accesses to a block");
    static final Option<Long> PERIOD_MS =
            Option.longOption("period.ms", 1000, 10, 60_000, "ms", "prefetch and hotness-decay period");
    static final Option<Integer> REFRESH_PERIODS = Option.intOption(
            "refresh.periods",
            30,
            1,
            1_000_000,
            "periods",
            "a prefetched block is not prefetched again for this many periods (cached blocks are kept current by write-through)");
    static final Option<Long> REWARM_SECONDS = Option.longOption(
            "rewarm.seconds",
            10,
            1,
            86_400,
            "s",
            "how often L0/L1 files are re-warmed in proactive mode (files wider than 1/8 of the cache are skipped)");
    static final Option<Long> LAYOUT_SECONDS = Option.longOption(
            "layout.seconds", 5, 0, 86_400, "s", "shortest interval between two block layouts of a partition");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Calcspar fluctuation-aware cache (§4.3): packed key ranges in front of point reads, written through"
                + " before a write is acknowledged; proactive prefetch of the hottest 256 KiB key-space blocks and"
                + " L0/L1 re-warm with spare paid IOPS (PREFETCH class), evicting the coldest per byte; passive"
                + " (misses only, LRU) when the top queue uses more than 95 % of the tokens, until it has used less for 5 ticks.";
    }

    @Override
    public OptionSet optionSet() {
        return OptionSet.of(
                BYTES,
                BLOCK_BYTES,
                PAID_IOPS,
                IO_UNIT_KB,
                PASSIVE_THRESHOLD,
                PROACTIVE_TICKS,
                PREFETCH_SHARE,
                ALPHA,
                PERIOD_MS,
                REFRESH_PERIODS,
                REWARM_SECONDS,
                LAYOUT_SECONDS);
    }

    @Override
    public ControlLoop create(ControlContext ctx) {
        long unit = ctx.get(IO_UNIT_KB) << 10;
        CalcsparCache cache = new CalcsparCache(new CalcsparCache.Settings(
                ctx.get(BYTES),
                ctx.get(BLOCK_BYTES),
                unit,
                ctx.get(ALPHA),
                ctx.get(PERIOD_MS),
                ctx.get(REFRESH_PERIODS)));
        for (String p : ctx.partitions()) {
            ctx.installReadCache(p, cache.forPartition(p));
        }
        cache.bindMeters(ctx.meterRegistry());
        return new CacheController(
                NAME,
                cache,
                ctx.get(PAID_IOPS),
                unit,
                ctx.get(PASSIVE_THRESHOLD),
                ctx.get(PROACTIVE_TICKS),
                ctx.get(PREFETCH_SHARE),
                ctx.get(LAYOUT_SECONDS) * 1_000_000_000L,
                ctx.get(REWARM_SECONDS) * 1_000_000_000L);
    }
}
