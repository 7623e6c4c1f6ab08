package dev.sluice.ratelimit.admission;

import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * ServiceLoader registrations of the admission controllers ("admission", "static-admission"), with their options as
 * typed descriptors (users set them as {@code control.<name>.<key>}). {@code device.read.mbps} and {@code
 * device.write.mbps} are in MiB/s (2^20 bytes per second), like every {@code mbps} option of the Env.
 */
public final class AdmissionProviders {
    private AdmissionProviders() {}

    // ---- options shared by both controllers (control.<name>.<key>) ----

    static final Option<String> SCOPE = Option.choiceOption(
            "scope", "all", List.of("all", "writes"), "which requests take a token: all (CruiseDB) or writes");
    static final Option<Long> QUEUE_MAX = Option.longOption(
            "queue.max",
            10_000,
            1,
            10_000_000,
            "requests",
            "most requests waiting for admission per partition; more are refused (OverloadedException)");
    static final Option<Long> WAIT_MAX_MS = Option.longOption(
            "wait.max.ms",
            1000,
            0,
            600_000,
            "ms",
            "longest admission wait; a request that would wait longer is refused at once");
    static final Option<Long> BURST_MS = Option.longOption(
            "burst.ms",
            10,
            0,
            10_000,
            "ms",
            "tokens an idle bucket may store, in milliseconds of rate (at least one token)");
    static final Option<Double> MIN_RATE =
            Option.doubleOption("min.rate", 100, 1, 1e9, "requests/s", "lowest admission rate");
    static final Option<Double> WARMUP_SECONDS = Option.doubleOption(
            "warmup.seconds",
            5,
            0,
            3600,
            "s",
            "how long the unthrottled throughput is measured, from the first request, to set the initial rate (a mean"
                    + " below min.rate starts it over)");

    private static final OptionSet GATE_OPTIONS =
            OptionSet.of(SCOPE, QUEUE_MAX, WAIT_MAX_MS, BURST_MS, MIN_RATE, WARMUP_SECONDS);

    // ---- options of "admission" only ----

    static final Option<Double> K1 = Option.doubleOption("k1", 0.5, 0, 10, "", "Eq. 2 proportional weight K1");
    static final Option<Double> K2 = Option.doubleOption("k2", 0.4, 0, 10, "", "Eq. 2 derivative weight K2");
    static final Option<String> WATERMARK_SOURCE = Option.choiceOption(
            "watermark.source",
            "memtable",
            List.of("memtable", "unmerged"),
            "the fill level held at the target: memtable (memtables / write-buffer budget) or unmerged ((memtables +"
                    + " L0 bytes not yet merged) / budget: use with the cruise-sp-lsm profile, where L0 stands for"
                    + " SP-LSM's in-memory buffer)");
    static final Option<Double> WATERMARK_TARGET = Option.doubleOption(
            "watermark.target", 0.5, 0.01, 1, "fraction", "target watermark (below watermark.high)");
    static final Option<Double> WATERMARK_HIGH = Option.doubleOption(
            "watermark.high", 0.8, 0.05, 1, "fraction", "at or above it the rate is the conservative T_c (Eq. 3)");
    static final Option<Double> INITIAL_RATE = Option.doubleOption(
            "initial.rate", 0, 0, 1e9, "requests/s", "t_0; 0 = measure the unthrottled mean during warm-up");
    static final Option<Double> MAX_RATE_FACTOR = Option.doubleOption(
            "max.rate.factor", 2, 1, 1000, "", "the rate stays below this multiple of max(t_0, recent demand)");
    static final Option<Double> DEVICE_READ_MBPS = Option.doubleOption(
            "device.read.mbps",
            0,
            0,
            1e6,
            Option.MIB_PER_SECOND,
            "device read throughput T_R for Eq. 3; 0 = the highest node I/O throughput measured so far (reads and writes"
                    + " together; see AdaptiveAdmission)");
    static final Option<Double> DEVICE_WRITE_MBPS = Option.doubleOption(
            "device.write.mbps",
            0,
            0,
            1e6,
            Option.MIB_PER_SECOND,
            "device write throughput T_W for Eq. 3; 0 = measured, as device.read.mbps");
    static final Option<Double> CHANGE_THRESHOLD = Option.doubleOption(
            "change.threshold", 0.01, 0, 1, "fraction", "relative rate change below which no new rate is applied");
    static final Option<Double> PERIOD_SECONDS = Option.doubleOption(
            "period.seconds",
            10,
            0.01,
            3600,
            "s",
            "how often Eq. 2 adjusts the rate (the paper: every 0.4 M operations, ~10 s at its ~40 k ops/s); the high"
                    + " watermark is checked at every tick");

    static final Option<Long> DRAIN_TICKS = Option.longOption(
            "drain.ticks",
            AdaptiveAdmission.DRAIN_TICKS,
            0,
            3600,
            "ticks",
            "below the target, after this many ticks in a row at which the watermark fell (by more than half a point a"
                    + " second at their median) while the gate held requests back, Eq. 2's raise applies at every tick (up to the rate before its last cuts) instead of once"
                    + " per period; 0 = never (Eq. 2 alone, as the paper)");

    static final Option<Double> DRAIN_HORIZON_SECONDS = Option.doubleOption(
            "drain.horizon.seconds",
            AdaptiveAdmission.DRAIN_HORIZON_SECONDS,
            0,
            3600,
            "s",
            "above the target, after drain.ticks ticks in a row at which the watermark fell (at a median pace that"
                    + " reaches the target within this horizon) while the gate held requests back, the rate is raised"
                    + " (up to x1.5 a tick and the rate before Eq. 2's last cuts) to one at"
                    + " which the buffer still reaches the target within this many seconds, and Eq. 2 does not cut;"
                    + " 0 = never");

    static final Option<Double> CONSERVATIVE_HORIZON_SECONDS = Option.doubleOption(
            "conservative.horizon.seconds",
            0,
            0,
            3600,
            "s",
            "above the high watermark, while the buffer at its last tick's pace would not be full within this many"
                    + " seconds, the rate holds instead of dropping to T_c (a Sluice addition); 0 = never (T_c as the"
                    + " paper)");

    static final Option<Double> DEBT_WINDOW_SECONDS = Option.doubleOption(
            "debt.window.seconds",
            0,
            0,
            86_400,
            "s",
            "the levels' debt ceiling (a Sluice addition): every quarter of this window, when the bytes the levels"
                    + " between L0 and the last hold above their targets grew over the window by 64 MiB or more, the"
                    + " rate's ceiling comes down 4 % below the rate admitted over the window; when they did not grow it"
                    + " goes up 4 %, and is lifted once 20 % above that rate; 0 = never (the paper watches the buffer"
                    + " only)");

    // ---- options of "static-admission" only ----

    static final Option<Double> RATE = Option.doubleOption(
            "rate", 0, 0, 1e9, "requests/s", "fixed rate; 0 = the mean unthrottled throughput of the warm-up");

    private static void installGates(ControlContext ctx, AdmissionScope scope) {
        int queueMax = (int) (long) ctx.get(QUEUE_MAX);
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(ctx.get(WAIT_MAX_MS));
        long burstNanos = TimeUnit.MILLISECONDS.toNanos(ctx.get(BURST_MS));
        for (String p : ctx.partitions()) {
            ctx.installAdmissionGate(
                    p, TokenBucketGate.create(p, Double.POSITIVE_INFINITY, scope, queueMax, waitNanos, burstNanos));
        }
    }

    /** CruiseDB adaptive admission (Eq. 2 + Eq. 3). */
    public static final class Adaptive implements ControlLoopProvider {
        @Override
        public String name() {
            return "admission";
        }

        @Override
        public String description() {
            return "CruiseDB adaptive admission (§V): token bucket + bounded waiting queue per partition, rate from the"
                    + " memtable watermark (Eq. 2), conservative rate T_c above the high watermark (Eq. 3).";
        }

        @Override
        public OptionSet optionSet() {
            return GATE_OPTIONS.with(
                    K1,
                    K2,
                    WATERMARK_SOURCE,
                    WATERMARK_TARGET,
                    WATERMARK_HIGH,
                    INITIAL_RATE,
                    MAX_RATE_FACTOR,
                    DEVICE_READ_MBPS,
                    DEVICE_WRITE_MBPS,
                    CHANGE_THRESHOLD,
                    PERIOD_SECONDS,
                    DRAIN_TICKS,
                    DRAIN_HORIZON_SECONDS,
                    CONSERVATIVE_HORIZON_SECONDS,
                    DEBT_WINDOW_SECONDS);
        }

        @Override
        public ControlLoop create(ControlContext ctx) {
            AdmissionScope scope = AdmissionScope.parse(ctx.get(SCOPE));
            double high = ctx.get(WATERMARK_HIGH);
            double target = ctx.get(WATERMARK_TARGET);
            if (target >= high) {
                throw new IllegalArgumentException("control." + name() + ".watermark.target = " + target
                        + " must be below control." + name() + ".watermark.high = " + high);
            }
            AdaptiveAdmission.Settings s = new AdaptiveAdmission.Settings(
                    ctx.get(K1),
                    ctx.get(K2),
                    target,
                    high,
                    ctx.get(INITIAL_RATE),
                    (long) (ctx.get(WARMUP_SECONDS) * 1e9),
                    ctx.get(MIN_RATE),
                    ctx.get(MAX_RATE_FACTOR),
                    ctx.get(DEVICE_READ_MBPS) * Option.MIB,
                    ctx.get(DEVICE_WRITE_MBPS) * Option.MIB,
                    scope,
                    ctx.get(CHANGE_THRESHOLD),
                    WatermarkSource.parse(ctx.get(WATERMARK_SOURCE)),
                    (long) (ctx.get(PERIOD_SECONDS) * 1e9),
                    (int) (long) ctx.get(DRAIN_TICKS),
                    ctx.get(DRAIN_HORIZON_SECONDS),
                    ctx.get(CONSERVATIVE_HORIZON_SECONDS),
                    ctx.get(DEBT_WINDOW_SECONDS));
            installGates(ctx, scope);
            return new AdaptiveAdmission(name(), s);
        }
    }

    /** Fixed-rate admission baseline (CruiseDB §VIII-G). */
    public static final class Static implements ControlLoopProvider {
        @Override
        public String name() {
            return "static-admission";
        }

        @Override
        public String description() {
            return "Static admission baseline (CruiseDB §VIII-G): a fixed rate, configured or the mean unthrottled"
                    + " throughput of the warm-up.";
        }

        @Override
        public OptionSet optionSet() {
            return GATE_OPTIONS.with(RATE);
        }

        @Override
        public ControlLoop create(ControlContext ctx) {
            AdmissionScope scope = AdmissionScope.parse(ctx.get(SCOPE));
            double rate = ctx.get(RATE);
            double min = ctx.get(MIN_RATE);
            if (rate > 0 && rate < min) {
                // until 2026-11-28 accepted, and the fixed rate applied below the documented lowest rate (probe)
                throw new IllegalArgumentException("control." + name() + ".rate = " + Option.number(rate)
                        + " is below control." + name() + ".min.rate = " + Option.number(min)
                        + " (the lowest admission rate); lower min.rate too");
            }
            StaticAdmission loop = new StaticAdmission(
                    ctx.get(RATE), (long) (ctx.get(WARMUP_SECONDS) * 1e9), scope, ctx.get(MIN_RATE));
            installGates(ctx, scope);
            return loop;
        }
    }
}
