package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/** Detailed cumulative I/O counters per class, node-wide or for one partition (see {@link IoClassDetail}). */
public record IoDetail(Map<IoClass, IoClassDetail> perClass) {
    public IoDetail {
        perClass = Collections.unmodifiableMap(new EnumMap<>(perClass));
    }

    static IoDetail fromNative(long[] raw) {
        EnumMap<IoClass, IoClassDetail> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            m.put(c, IoClassDetail.fromNative(raw, c.ordinal() * NativeBridge.STAT_FIELDS));
        }
        return new IoDetail(m);
    }

    public IoClassDetail get(IoClass c) {
        return perClass.get(c);
    }

    public IoDetail minus(IoDetail o) {
        EnumMap<IoClass, IoClassDetail> m = new EnumMap<>(IoClass.class);
        for (IoClass c : IoClass.values()) {
            m.put(c, get(c).minus(o.get(c)));
        }
        return new IoDetail(m);
    }

    public IoStats toIoStats() {
        EnumMap<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        perClass.forEach((c, d) -> m.put(c, d.toIoClassStats()));
        return new IoStats(IoStats.Source.ENV, m);
    }
}
