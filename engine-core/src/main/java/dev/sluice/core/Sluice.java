package dev.sluice.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;

/**
 * Entry point. {@code Sluice.open(dir)} opens (or creates) a store with one partition named "default", the stock
 * {@code rocksdb-default} profile, no controllers, and the priority Env when it is available on this platform.
 *
 * <pre>{@code
 * try (SluiceNode node = Sluice.open(Path.of("data"))) {
 *     Partition p = node.defaultPartition();
 *     p.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
 *     byte[] v = p.get("k".getBytes(UTF_8));
 * }
 * }</pre>
 */
public final class Sluice {
    private Sluice() {}

    /** Opens or creates a store in {@code dataDir} with default settings. */
    public static SluiceNode open(Path dataDir) {
        return open(SluiceConfig.defaults(dataDir));
    }

    /**
     * Checks a configuration without opening anything: the profile, the controllers named in {@code controls} and every
     * {@code control.*} and {@code env.*} value, against what is on the classpath. Nothing is read from or written to
     * {@code data.dir} and no native code is loaded. {@link #open(SluiceConfig)} runs the same checks first.
     *
     * @throws ConfigException naming the first bad key and what it allows
     */
    public static void validate(SluiceConfig config) {
        NodeImpl.validate(config);
    }

    public static SluiceNode open(SluiceConfig config) {
        return open(config, new SimpleMeterRegistry());
    }

    /** Opens with metrics registered in {@code registry} (e.g. a Prometheus registry). */
    public static SluiceNode open(SluiceConfig config, MeterRegistry registry) {
        return NodeImpl.open(config, registry, com.google.common.base.Ticker.systemTicker());
    }

    /** Opens a store with a custom ticker for the control plane (tests step time with a fake ticker). */
    public static SluiceNode open(SluiceConfig config, MeterRegistry registry, com.google.common.base.Ticker ticker) {
        return NodeImpl.open(config, registry, ticker);
    }
}
