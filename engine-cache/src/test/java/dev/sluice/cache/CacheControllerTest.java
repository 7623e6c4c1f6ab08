package dev.sluice.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The mode switch and the prefetch budget on scripted token usage (no engine, a scripted clock). */
class CacheControllerTest {
    private static final long SEC = 1_000_000_000L;

    /** Records what the actions set. */
    static final class Recorder implements CacheActuator {
        final List<String> calls = new ArrayList<>();
        CacheMode mode = CacheMode.PROACTIVE;
        double budget = -1;

        public void setMode(CacheMode m) {
            mode = m;
            calls.add("mode=" + m);
        }

        public void setPrefetchBudget(double u) {
            budget = u;
            calls.add("budget=" + Math.round(u));
        }

        public void setLayout(String p, List<HotnessTable.Extent> files) {
            calls.add("layout " + p);
        }

        public void rewarm(String p, List<KeyRangeBytes> r) {
            calls.add("rewarm " + p);
        }
    }

    /** A tick whose interval saw {@code userGets} 4 KiB Gets, {@code wal} WAL writes and {@code compaction} deep I/Os. */
    private static NodeSnapshot tick(long t, long userGets, long wal, long deep) {
        Map<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        m.put(IoClass.USER_GET, new IoClassStats(userGets, userGets * 4096, 0, 0));
        m.put(IoClass.WAL, new IoClassStats(wal, wal * 512, 0, 0));
        m.put(IoClass.COMPACTION_DEEP, new IoClassStats(deep, deep * (256L << 10), 0, 0));
        IoStats d = new IoStats(IoStats.Source.ENV, m);
        return new NodeSnapshot(t, Map.of(), d, d, 0);
    }

    private static List<Action> apply(CacheController c, NodeSnapshot s, long now, Recorder r) {
        List<Action> acts = c.decide(s, now);
        for (Action a : acts) {
            a.applyTo(null);
        }
        return acts;
    }

    @Test
    void topQueueAboveNinetyFivePercentOfTheTokensSwitchesToPassiveAndBack() {
        Recorder r = new Recorder();
        CacheController c = new CacheController("calcspar-cache", r, 1000, 256 << 10, 0.95, 1, 0.8, 0, 10 * SEC);
        apply(c, tick(0, 0, 0, 0), 0, r); // first tick: no interval yet
        assertThat(r.calls).isEmpty();

        // 500 top-queue units of 1000 paid, 100 deep compaction units: proactive, budget 0.8 · (1000 − 600) = 320
        apply(c, tick(SEC, 400, 100, 100), SEC, r);
        assertThat(r.calls).containsExactly("budget=320");
        assertThat(r.mode).isEqualTo(CacheMode.PROACTIVE);

        // 960 top-queue units (96 %): passive, no prefetch
        r.calls.clear();
        List<Action> acts = apply(c, tick(2 * SEC, 900, 60, 0), 2 * SEC, r);
        assertThat(r.calls).containsExactly("mode=PASSIVE", "budget=0");
        assertThat(acts.get(0).reason()).contains("96%");
        assertThat(acts.get(0).knob()).isEqualTo("*/calcspar_cache_mode");

        // exactly 95 % is not more than 95 %: proactive again; only 50 spare tokens
        r.calls.clear();
        apply(c, tick(3 * SEC, 900, 50, 0), 3 * SEC, r);
        assertThat(r.calls).containsExactly("mode=PROACTIVE", "budget=40");

        // the same usage over a 2-s interval is half the rate: still proactive, budget changes
        r.calls.clear();
        apply(c, tick(5 * SEC, 900, 50, 0), 5 * SEC, r);
        assertThat(r.calls).containsExactly("budget=420");
        // a budget change under 10 % is not re-recorded
        r.calls.clear();
        apply(c, tick(7 * SEC, 920, 50, 0), 7 * SEC, r);
        assertThat(r.calls).isEmpty();
    }

    @Test
    void aLoadAlternatingAroundTheThresholdSwitchesToPassiveOnceAndBackAfterCalmTicks() {
        Recorder r = new Recorder();
        CacheController c = new CacheController("calcspar-cache", r, 1000, 256 << 10, 0.95, 3, 0.8, 0, 10 * SEC);
        apply(c, tick(0, 0, 0, 0), 0, r);
        long t = 0;
        // 960 and 500 top-queue units in turn, ending busy: the paper's rule (proactive.ticks = 1) switches at every
        // tick
        for (int i = 0; i < 7; i++) {
            t += SEC;
            apply(c, i % 2 == 0 ? tick(t, 900, 60, 0) : tick(t, 400, 100, 0), t, r);
        }
        assertThat(r.calls.stream().filter(x -> x.startsWith("mode=")).toList())
                .as("one switch, no flapping")
                .containsExactly("mode=PASSIVE");
        assertThat(c.mode()).isEqualTo(CacheMode.PASSIVE);
        assertThat(r.calls).containsExactly("mode=PASSIVE", "budget=0"); // no prefetch grant while passive

        // two calm ticks are not enough, the third turns it proactive
        r.calls.clear();
        for (int i = 0; i < 2; i++) {
            t += SEC;
            apply(c, tick(t, 400, 100, 0), t, r);
        }
        assertThat(c.mode()).isEqualTo(CacheMode.PASSIVE);
        assertThat(r.calls).isEmpty();
        t += SEC;
        List<Action> acts = apply(c, tick(t, 400, 100, 0), t, r);
        assertThat(r.calls).containsExactly("mode=PROACTIVE", "budget=400"); // 0.8 · (1000 − 500)
        assertThat(acts.get(0).reason()).contains("3 tick(s)");

        // a busy tick goes passive at once again
        r.calls.clear();
        t += SEC;
        apply(c, tick(t, 900, 60, 0), t, r);
        assertThat(r.calls).containsExactly("mode=PASSIVE", "budget=0");

        assertThatThrownBy(() -> new CacheController("x", r, 1000, 256 << 10, 0.95, 0, 0.8, 0, SEC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("proactiveTicks");
    }

    @Test
    void largeIosCostOneTokenPerIoUnit() {
        Recorder r = new Recorder();
        CacheController c = new CacheController("calcspar-cache", r, 1000, 256 << 10, 0.95, 1, 1.0, 0, 10 * SEC);
        Map<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        // 10 flush writes of 100 MiB in total: 400 units, not 10
        m.put(IoClass.FLUSH, new IoClassStats(10, 100L << 20, 0, 0));
        IoStats d = new IoStats(IoStats.Source.ENV, m);
        c.decide(new NodeSnapshot(0, Map.of(), d, d, 0), 0);
        for (Action a : c.decide(new NodeSnapshot(SEC, Map.of(), d, d, 0), SEC)) {
            a.applyTo(null);
        }
        assertThat(r.budget).isEqualTo(600);
    }
    /** A tick whose interval saw {@code prefetch} PREFETCH reads of 4 KiB and nothing else. */
    private static NodeSnapshot prefetchTick(long t, long prefetch) {
        Map<IoClass, IoClassStats> m = new EnumMap<>(IoClass.class);
        m.put(IoClass.PREFETCH, new IoClassStats(prefetch, prefetch * 4096, 0, 0));
        IoStats d = new IoStats(IoStats.Source.ENV, m);
        return new NodeSnapshot(t, Map.of(), d, d, 0);
    }

    @Test
    void aPrefetcherThatReadsMoreThanItsGrantGetsASmallerGrant() {
        Recorder r = new Recorder();
        CacheController c = new CacheController("calcspar-cache", r, 1000, 256 << 10, 0.95, 1, 1.0, 0, 10 * SEC);
        apply(c, prefetchTick(0, 0), 0, r);
        apply(c, prefetchTick(SEC, 0), SEC, r);
        assertThat(r.calls).containsExactly("budget=1000");
        // it read less than granted: the cost stays 1, the grant is what is spare
        r.calls.clear();
        apply(c, prefetchTick(2 * SEC, 500), 2 * SEC, r);
        assertThat(c.prefetchCost()).isEqualTo(1.0);
        assertThat(r.calls).containsExactly("budget=500");
        // granted 500, the Env counted 800: cost 0.5 · 1 + 0.5 · 1.6 = 1.3; spare 200 → 200 / 1.3 = 154
        r.calls.clear();
        List<Action> acts = apply(c, prefetchTick(3 * SEC, 800), 3 * SEC, r);
        assertThat(c.prefetchCost()).isCloseTo(1.3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.calls).containsExactly("budget=154");
        assertThat(acts.get(0).reason()).contains("1.3 device units per prefetch unit");
        // granted 153.8, counted 400 (2.6 per granted unit): cost 1.95; spare 600 → 308
        r.calls.clear();
        apply(c, prefetchTick(4 * SEC, 400), 4 * SEC, r);
        assertThat(c.prefetchCost()).isCloseTo(1.95, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.calls).containsExactly("budget=308");
    }
}
