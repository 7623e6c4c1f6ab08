package dev.sluice.ratelimit.admission;

import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.control.ControlLoopProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** ServiceLoader registrations of the admission controllers ("admission", "static-admission"). */
public final class AdmissionProviders {
    private AdmissionProviders() {}

    private static Map<String, String> gateOptions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("scope", "all — which requests take a token: all (CruiseDB) or writes");
        m.put(
                "queue.max",
                "10000 — most requests waiting for admission per partition; more are refused (OverloadedException)");
        m.put("wait.max.ms", "1000 — longest admission wait; a request that would wait longer is refused at once");
        m.put("burst.ms", "10 — tokens an idle bucket may store, in milliseconds of rate (at least one token)");
        m.put("min.rate", "100 — lowest admission rate, requests/s");
        m.put("warmup.seconds", "5 — how long the unthrottled throughput is measured to set the initial rate");
        return m;
    }

    private static void installGates(ControlContext ctx, AdmissionScope scope) {
        int queueMax = (int) ctx.longOption("queue.max", 1, 10_000_000);
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(ctx.longOption("wait.max.ms", 0, 600_000));
        long burstNanos = TimeUnit.MILLISECONDS.toNanos(ctx.longOption("burst.ms", 0, 10_000));
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
        public Map<String, String> options() {
            Map<String, String> m = gateOptions();
            m.put("k1", "0.5 — Eq. 2 proportional weight K1");
            m.put("k2", "0.4 — Eq. 2 derivative weight K2");
            m.put(
                    "watermark.source",
                    "memtable — the fill level held at the target: memtable (memtables / write-buffer budget) or"
                            + " unmerged ((memtables + L0 bytes not yet merged) / budget: use with the"
                            + " cruise-sp-lsm profile, where L0 stands for SP-LSM's in-memory buffer)");
            m.put("watermark.target", "0.5 — target watermark");
            m.put("watermark.high", "0.8 — at or above it the rate is the conservative T_c (Eq. 3)");
            m.put("initial.rate", "0 — t_0 in requests/s; 0 = measure the unthrottled mean during warm-up");
            m.put("max.rate.factor", "2 — the rate stays below this multiple of max(t_0, recent demand)");
            m.put(
                    "device.read.mbps",
                    "0 — device read throughput T_R for Eq. 3 (MB/s); 0 = unknown (T_c halves the rate)");
            m.put("device.write.mbps", "0 — device write throughput T_W for Eq. 3 (MB/s); 0 = unknown");
            m.put("change.threshold", "0.01 — relative rate change below which no new rate is applied");
            m.put(
                    "period.seconds",
                    "10 — how often Eq. 2 adjusts the rate (the paper: every 0.4 M operations, ~10 s at its ~40 k"
                            + " ops/s); the high watermark is checked at every tick");
            return m;
        }

        @Override
        public ControlLoop create(ControlContext ctx) {
            AdmissionScope scope = AdmissionScope.parse(ctx.options().get("scope"));
            double high = ctx.doubleOption("watermark.high", 0.05, 1.0);
            double target = ctx.doubleOption("watermark.target", 0.01, 1.0);
            if (target >= high) {
                throw new IllegalArgumentException(
                        "option 'watermark.target' (" + target + ") must be below 'watermark.high' (" + high + ")");
            }
            AdaptiveAdmission.Settings s = new AdaptiveAdmission.Settings(
                    ctx.doubleOption("k1", 0, 10),
                    ctx.doubleOption("k2", 0, 10),
                    target,
                    high,
                    ctx.doubleOption("initial.rate", 0, 1e9),
                    (long) (ctx.doubleOption("warmup.seconds", 0, 3600) * 1e9),
                    ctx.doubleOption("min.rate", 1, 1e9),
                    ctx.doubleOption("max.rate.factor", 1, 1000),
                    ctx.doubleOption("device.read.mbps", 0, 1e6) * 1e6,
                    ctx.doubleOption("device.write.mbps", 0, 1e6) * 1e6,
                    scope,
                    ctx.doubleOption("change.threshold", 0, 1),
                    WatermarkSource.parse(ctx.options().get("watermark.source")),
                    (long) (ctx.doubleOption("period.seconds", 0.01, 3600) * 1e9));
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
        public Map<String, String> options() {
            Map<String, String> m = gateOptions();
            m.put("rate", "0 — fixed rate in requests/s; 0 = the mean unthrottled throughput of the warm-up");
            return m;
        }

        @Override
        public ControlLoop create(ControlContext ctx) {
            AdmissionScope scope = AdmissionScope.parse(ctx.options().get("scope"));
            StaticAdmission loop = new StaticAdmission(
                    ctx.doubleOption("rate", 0, 1e9),
                    (long) (ctx.doubleOption("warmup.seconds", 0, 3600) * 1e9),
                    scope,
                    ctx.doubleOption("min.rate", 1, 1e9));
            installGates(ctx, scope);
            return loop;
        }
    }
}
