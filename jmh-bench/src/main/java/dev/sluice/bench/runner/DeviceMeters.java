package dev.sluice.bench.runner;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Per-second device and cache counters of a stack (Calcspar's report, issue 19): the emulated device's overdraft I/Os
 * ({@code sluice.device.overdraft.ops}, exported by the node when it runs on the priority Env) and the Calcspar
 * cache's hits and misses by mode ({@code sluice.cache.requests}, present only with {@code controls = calcspar-cache}).
 * Read once at each window's close by the window loop's thread.
 */
final class DeviceMeters {
    private static final String[] MODES = {"proactive", "passive"};

    private final MeterRegistry registry;
    private double lastOverdraft;
    private int overContractSeconds;
    private long overdraftIos;
    private boolean sawMeasured;
    /** hit/miss counters per mode: [hit proactive, miss proactive, hit passive, miss passive]. */
    private double[] cachePrev;

    private double[] cacheStart;
    private double[] cacheEnd;

    DeviceMeters(MeterRegistry registry) {
        this.registry = registry;
        this.lastOverdraft = overdraft();
        this.cachePrev = cache();
    }

    private double overdraft() {
        FunctionCounter c = registry.find("sluice.device.overdraft.ops").functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    private double[] cache() {
        double[] v = new double[4];
        boolean any = false;
        for (int m = 0; m < 2; m++) {
            for (int r = 0; r < 2; r++) {
                FunctionCounter c = registry.find("sluice.cache.requests")
                        .tag("result", r == 0 ? "hit" : "miss")
                        .tag("mode", MODES[m])
                        .functionCounter();
                if (c != null) {
                    any = true;
                    v[2 * m + r] = c.count();
                }
            }
        }
        return any ? v : null;
    }

    /** Closes one 1-s window. */
    void window(boolean measured) {
        double now = overdraft();
        double[] c = cache();
        if (measured) {
            if (!Double.isNaN(now) && !Double.isNaN(lastOverdraft)) {
                double d = now - lastOverdraft;
                if (d > 0) {
                    overContractSeconds++;
                    overdraftIos += (long) d;
                }
            }
            if (!sawMeasured) {
                cacheStart = cachePrev;
                sawMeasured = true;
            }
            cacheEnd = c;
        }
        lastOverdraft = now;
        cachePrev = c;
    }

    /**
     * The summary over the measured windows.
     *
     * @param prefetchIos PREFETCH-class I/Os the Env counted over the measured windows, or null without the Env
     */
    Results.Device result(Long prefetchIos) {
        boolean deviceKnown = !Double.isNaN(lastOverdraft);
        Double ratio = null, proactive = null, passive = null;
        Long proactiveLookups = null, passiveLookups = null;
        if (cacheStart != null && cacheEnd != null) {
            double[] d = new double[4];
            for (int i = 0; i < 4; i++) {
                d[i] = cacheEnd[i] - cacheStart[i];
            }
            ratio = share(d[0] + d[2], d[1] + d[3]);
            proactive = share(d[0], d[1]);
            passive = share(d[2], d[3]);
            proactiveLookups = (long) (d[0] + d[1]);
            passiveLookups = (long) (d[2] + d[3]);
        }
        return new Results.Device(
                deviceKnown ? overContractSeconds : null,
                deviceKnown ? overdraftIos : null,
                ratio,
                proactive,
                passive,
                proactiveLookups,
                passiveLookups,
                prefetchIos);
    }

    private static Double share(double hits, double misses) {
        double n = hits + misses;
        return n <= 0 ? null : Math.round(1000 * hits / n) / 1000.0;
    }
}
