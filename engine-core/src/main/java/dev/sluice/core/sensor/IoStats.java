package dev.sluice.core.sensor;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * I/O per {@link IoClass}, and where the numbers came from.
 *
 * @param source {@link Source#ENV} when the priority Env measured every I/O; {@link Source#STATISTICS} when they are
 *     estimated from RocksDB Statistics (no Env): then compaction I/O is reported under {@link IoClass#COMPACTION_HIGH}
 *     for all levels, read bytes of user classes are unknown ({@code -1}) and wait times are {@code -1}.
 * @param perClass cumulative counters, one entry per class (missing classes are zero)
 */
public record IoStats(Source source, Map<IoClass, IoClassStats> perClass) {
    public enum Source {
        ENV,
        STATISTICS,
        NONE
    }

    public static final IoStats EMPTY = new IoStats(Source.NONE, Map.of());

    public IoStats {
        EnumMap<IoClass, IoClassStats> copy = new EnumMap<>(IoClass.class);
        copy.putAll(perClass);
        perClass = Collections.unmodifiableMap(copy);
    }

    public IoClassStats get(IoClass c) {
        return perClass.getOrDefault(c, IoClassStats.ZERO);
    }

    /** Sum of the bytes of the given classes (unknown counters count as zero). */
    public long bytes(IoClass... classes) {
        long sum = 0;
        for (IoClass c : classes) {
            sum += Math.max(0, get(c).bytes());
        }
        return sum;
    }

    public IoStats plus(IoStats o) {
        EnumMap<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            m.put(c, get(c).plus(o.get(c)));
        }
        return new IoStats(source == o.source ? source : Source.NONE, m);
    }

    public IoStats minus(IoStats o) {
        EnumMap<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            m.put(c, get(c).minus(o.get(c)));
        }
        return new IoStats(source, m);
    }
}
