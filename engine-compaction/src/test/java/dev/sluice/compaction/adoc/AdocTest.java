package dev.sluice.compaction.adoc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlContext;
import dev.sluice.core.control.ControlLoopProvider;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Scripted snapshots and a fake clock: a {@link Tree} stands for one partition, applies the controller's actions to
 * its knobs the way the actuators would, and produces the next snapshot from them.
 */
class AdocTest {
    static final long MB = 1 << 20, SEC = 1_000_000_000L;

    /** One partition "p": slowdown trigger 20, soft pending limit 64 GiB, 2 memtables; knobs start at 2 jobs, 64 MiB. */
    static final class Tree {
        int jobs = 2;
        long batch = 64 * MB;
        int subcompactions = 1;
        int l0;
        long pending;
        long active;
        int immutables;
        long now;
        final List<Action> log = new ArrayList<>();

        Tree l0(int files) {
            l0 = files;
            return this;
        }

        Tree pending(long bytes) {
            pending = bytes;
            return this;
        }

        /** Active memtable at {@code fraction} of the current batch, with {@code imm} immutables waiting. */
        Tree memtables(double fraction, int imm) {
            active = (long) (fraction * batch);
            immutables = imm;
            return this;
        }

        Tree calm() {
            return l0(2).pending(0).memtables(0.3, 0);
        }

        LsmSnapshot snapshot() {
            return snapshot("p");
        }

        LsmSnapshot snapshot(String name) {
            return new LsmSnapshot(
                    name,
                    now,
                    SEC,
                    active + immutables * batch,
                    active,
                    2 * batch,
                    immutables,
                    batch,
                    2,
                    20,
                    36,
                    List.of(new LevelInfo(0, l0, l0 * 64 * MB, 0, List.of())),
                    pending,
                    64L << 30,
                    256L << 30,
                    StallCondition.NORMAL,
                    0,
                    0,
                    0,
                    jobs,
                    false,
                    0,
                    0,
                    0,
                    0,
                    OpCounters.ZERO,
                    OpCounters.ZERO,
                    IoStats.EMPTY,
                    IoStats.EMPTY,
                    Double.POSITIVE_INFINITY,
                    0,
                    -1,
                    0,
                    PartitionHealth.OK,
                    -1,
                    subcompactions);
        }

        /** One tick of {@code seconds} on the fake clock; the actions are applied like the actuators would. */
        List<Action> tick(Adoc c, double seconds) {
            now += (long) (seconds * SEC);
            List<Action> a =
                    c.decide(new NodeSnapshot(now, Map.of("p", snapshot()), IoStats.EMPTY, IoStats.EMPTY, 0), now);
            for (Action x : a) {
                assertThat(x.partition()).isEqualTo("p");
                if (x instanceof Action.SetMaxBackgroundJobs j) {
                    jobs = j.jobs();
                } else if (x instanceof Action.SetWriteBufferSize w) {
                    batch = w.bytes();
                } else if (x instanceof Action.SetMaxSubcompactions m) {
                    subcompactions = m.subcompactions();
                } else {
                    throw new AssertionError("ADOC set an unexpected knob: " + x);
                }
            }
            log.addAll(a);
            return a;
        }

        List<Action> tick(Adoc c) {
            return tick(c, 1);
        }
    }

    static Adoc adoc() {
        return new Adoc(Adoc.Settings.paper(8));
    }

    /** A fresh controller that has seen the tree's initial values (first snapshot, no decision yet). */
    static Adoc started(Tree t) {
        Adoc c = adoc();
        assertThat(c.decide(node(t), t.now))
                .as("first snapshot opens the first window")
                .isEmpty();
        return c;
    }

    static NodeSnapshot node(Tree t) {
        return new NodeSnapshot(t.now, Map.of("p", t.snapshot()), IoStats.EMPTY, IoStats.EMPTY, 0);
    }

    static <T extends Action> T only(List<Action> a, Class<T> type) {
        assertThat(a).hasSize(1).first().isInstanceOf(type);
        return type.cast(a.get(0));
    }

    @Test
    void l0OverflowAddsTwoThreadsAndLeavesTheBatchAlone() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.l0(21);
        Action.SetMaxBackgroundJobs j = only(t.tick(c), Action.SetMaxBackgroundJobs.class);
        assertThat(j.jobs()).isEqualTo(4);
        assertThat(j.reason())
                .contains("L0O: 21 L0 files >= 20", "max_background_jobs 2 -> 4", "flushes max(1, jobs/4) = 1");
        assertThat(t.batch).isEqualTo(64 * MB);
    }

    /**
     * With max.subcompactions > 1 the L0->L1 job's threads follow the compaction slots of the thread count (jobs −
     * max(1, jobs/4)), capped, and fall back with the threads — never below the partition's initial value.
     */
    @Test
    void theL0ToL1JobsThreadsFollowTheCompactionThreadsUpToTheirMaximum() {
        Tree t = new Tree().calm();
        Adoc c = new Adoc(Adoc.Settings.paper(16).withMaxSubcompactions(4));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(21);
        List<Action> a = t.tick(c);
        assertThat(a).hasSize(2);
        assertThat(t.jobs).isEqualTo(4);
        assertThat(t.subcompactions)
                .as("4 jobs: 1 flush slot, 3 compaction slots")
                .isEqualTo(3);
        assertThat(a.get(1).reason())
                .startsWith("L0O: 21 L0 files >= 20")
                .contains("max_subcompactions 1 -> 3", "3 compaction slots of 4 jobs, at most 4");
        t.tick(c);
        assertThat(t.jobs).isEqualTo(6);
        assertThat(t.subcompactions)
                .as("6 jobs have 5 compaction slots; capped at 4")
                .isEqualTo(4);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs())
                .as("at the cap only the thread count moves")
                .isEqualTo(8);
        t.calm();
        t.tick(c);
        assertThat(t.jobs).isEqualTo(4);
        assertThat(t.subcompactions).isEqualTo(3);
        t.tick(c);
        assertThat(t.jobs).isEqualTo(2);
        assertThat(t.subcompactions)
                .as("back at the initial value with the threads")
                .isEqualTo(1);
        assertThat(t.tick(c))
                .as("a calm tree at its initial values: nothing to do")
                .isEmpty();
    }

    /** ADOC.md §4, row by row: jobs, max_subcompactions and batch after each window (J = 8, S = 4). */
    @Test
    void theWorkedExampleOfAdocMd() {
        Tree t = new Tree().calm();
        Adoc c = new Adoc(Adoc.Settings.paper(8).withMaxSubcompactions(4));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(21);
        t.tick(c);
        assertThat(List.of(t.jobs, t.subcompactions, (int) (t.batch / MB))).isEqualTo(List.of(4, 3, 64));
        t.l0(23).memtables(61.0 / 64, 1);
        t.tick(c);
        assertThat(List.of(t.jobs, t.subcompactions, (int) (t.batch / MB))).isEqualTo(List.of(6, 4, 64));
        t.l0(2).memtables(62.0 / 64, 1);
        t.tick(c);
        assertThat(List.of(t.jobs, t.subcompactions, (int) (t.batch / MB))).isEqualTo(List.of(3, 2, 128));
        t.memtables(0.3, 0).pending(70L << 30);
        t.tick(c);
        assertThat(List.of(t.jobs, t.subcompactions, (int) (t.batch / MB))).isEqualTo(List.of(5, 4, 64));
        t.pending(0);
        t.tick(c);
        assertThat(List.of(t.jobs, t.subcompactions, (int) (t.batch / MB))).isEqualTo(List.of(2, 1, 64));
        assertThat(t.tick(c)).isEmpty();
    }

    @Test
    void subcompactionsStayAtTheProfilesValueWhenItIsHigherAndAreLeftAloneWhenOffOrUnknown() {
        Tree t = new Tree().calm();
        t.subcompactions = 4; // the profile's value
        Adoc c = new Adoc(Adoc.Settings.paper(16).withMaxSubcompactions(2));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(21);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs()).isEqualTo(4);
        assertThat(t.subcompactions).as("never below the initial value").isEqualTo(4);

        Tree paper = new Tree().calm();
        Adoc off = adoc(); // Settings.paper: max subcompactions 1
        assertThat(off.decide(node(paper), paper.now)).isEmpty();
        paper.l0(21);
        assertThat(only(paper.tick(off), Action.SetMaxBackgroundJobs.class).jobs())
                .isEqualTo(4);
        assertThat(paper.subcompactions).isEqualTo(1);

        Tree cassandra = new Tree().calm();
        cassandra.subcompactions = -1; // an engine without the knob
        Adoc on = new Adoc(Adoc.Settings.paper(16).withMaxSubcompactions(4));
        assertThat(on.decide(node(cassandra), cassandra.now)).isEmpty();
        cassandra.l0(21);
        assertThat(only(cassandra.tick(on), Action.SetMaxBackgroundJobs.class).jobs())
                .isEqualTo(4);
        assertThat(cassandra.subcompactions).isEqualTo(-1);
    }

    @Test
    void redundancyOverflowAddsThreadsAndHalvesTheBatchButNotBelowItsInitialValue() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.batch = 256 * MB; // raised earlier (e.g. by MMO)
        t.pending(70L << 30);
        List<Action> a = t.tick(c);
        assertThat(a).hasSize(2);
        assertThat(t.jobs).isEqualTo(4);
        assertThat(t.batch).isEqualTo(128 * MB);
        assertThat(a.get(1).reason()).contains("RDO: pending compaction bytes 70GiB >= 64GiB", "256MiB -> 128MiB");
        t.tick(c);
        assertThat(t.batch).isEqualTo(64 * MB);
        assertThat(t.tick(c))
                .as("batch at its initial value: only threads move")
                .hasSize(1);
        assertThat(t.batch).isEqualTo(64 * MB);
        assertThat(t.jobs).isEqualTo(8);
    }

    @Test
    void memtableOverflowHalvesThreadsAndAddsSixtyFourMegabytesOfBatch() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.jobs = 8; // raised earlier (e.g. by L0O)
        t.memtables(0.95, 1);
        List<Action> a = t.tick(c);
        assertThat(a).hasSize(2);
        assertThat(t.jobs).isEqualTo(4);
        assertThat(t.batch).isEqualTo(128 * MB);
        assertThat(a.get(0).reason())
                .contains("MMO: active memtable 60.8MiB of 64MiB (>= 90 %) while 1 immutable memtable(s) wait");
        t.memtables(0.95, 1);
        t.tick(c);
        assertThat(t.jobs).as("never below the initial 2").isEqualTo(2);
        assertThat(t.batch).isEqualTo(192 * MB);
        t.memtables(0.95, 1);
        assertThat(only(t.tick(c), Action.SetWriteBufferSize.class).bytes()).isEqualTo(256 * MB);
    }

    /**
     * Writes stopped on memory: every memtable slot holds an immutable memtable waiting for flush and the new active
     * one is still empty. The active memtable filled before the older immutable one was flushed — MMO.
     */
    @Test
    void allMemtablesImmutableWithAnEmptyActiveOneIsMemoryOverflow() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.memtables(0.0, 2);
        Action.SetWriteBufferSize w = only(t.tick(c), Action.SetWriteBufferSize.class);
        assertThat(w.bytes()).isEqualTo(128 * MB);
        assertThat(w.reason()).contains("MMO: 2 immutable memtables wait for flush");
    }

    @Test
    void aFullActiveMemtableWithoutAnImmutableOneWaitingIsNoOverflow() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.memtables(1.0, 0);
        assertThat(t.tick(c)).isEmpty();
        t.memtables(0.5, 1);
        assertThat(t.tick(c))
                .as("an immutable waits but the active memtable is only half full")
                .isEmpty();
    }

    @Test
    void severalOverflowsInOneWindowAreHandledInL0oRdoMmoOrder() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.batch = 128 * MB;
        t.l0(20).pending(64L << 30).memtables(0.95, 1);
        Action.SetMaxBackgroundJobs j = only(t.tick(c), Action.SetMaxBackgroundJobs.class);
        assertThat(j.jobs()).isEqualTo(4);
        assertThat(j.reason()).startsWith("L0O:").contains("(also RDO, MMO this window; L0O, RDO, MMO order)");
        assertThat(t.batch)
                .as("L0O leaves the batch alone, although RDO would halve and MMO grow it")
                .isEqualTo(128 * MB);

        t.l0(2).pending(64L << 30).memtables(0.95, 1);
        List<Action> rdo = t.tick(c);
        assertThat(rdo).hasSize(2);
        assertThat(rdo.get(0).reason()).startsWith("RDO:").contains("also MMO");
        assertThat(t.jobs).as("RDO before MMO: threads up, not halved").isEqualTo(6);
        assertThat(t.batch).as("RDO before MMO: batch halved, not grown").isEqualTo(64 * MB);
    }

    @Test
    void overflowsAreCollectedOverTheWholeWindowAndHandledAtItsEnd() {
        Tree t = new Tree().calm();
        Adoc c = new Adoc(new Adoc.Settings(4 * SEC, 8, 512 * MB, 2, 64 * MB, 1.0, 0.9, 1, 1));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(25);
        assertThat(t.tick(c)).as("1 s into a 4-s window").isEmpty();
        t.calm();
        assertThat(t.tick(c)).isEmpty();
        assertThat(t.tick(c)).isEmpty();
        Action.SetMaxBackgroundJobs j = only(t.tick(c), Action.SetMaxBackgroundJobs.class);
        assertThat(j.reason()).as("the peak of the window, seen 3 s ago").contains("25 L0 files");
        for (int i = 0; i < 3; i++) {
            assertThat(t.tick(c)).isEmpty();
        }
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs())
                .as("a window without overflow halves back")
                .isEqualTo(2);
    }

    @Test
    void quietWindowsHalveBothKnobsBackToTheirInitialValuesAndThenStaySilent() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.jobs = 8;
        t.batch = 512 * MB;
        List<Action> first = t.tick(c);
        assertThat(first).hasSize(2);
        assertThat(first.get(0).reason()).contains("no overflow for 1 window(s)");
        assertThat(t.jobs).isEqualTo(4);
        assertThat(t.batch).isEqualTo(256 * MB);
        t.tick(c);
        t.tick(c);
        assertThat(t.jobs).isEqualTo(2);
        assertThat(t.batch).isEqualTo(64 * MB);
        for (int i = 0; i < 50; i++) {
            assertThat(t.tick(c))
                    .as("steady and calm at the initial values: no action")
                    .isEmpty();
        }
    }

    @Test
    void quietWindowsOptionWaitsThatManyCalmWindowsBeforeGivingBack() {
        Tree t = new Tree().calm();
        Adoc c = new Adoc(new Adoc.Settings(SEC, 8, 512 * MB, 2, 64 * MB, 1.0, 0.9, 3, 1));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(30);
        t.tick(c);
        assertThat(t.jobs).isEqualTo(4);
        t.calm();
        assertThat(t.tick(c)).isEmpty();
        assertThat(t.tick(c)).isEmpty();
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs()).isEqualTo(2);
    }

    @Test
    void aSteadyOverflowSaturatesAtTheMaximumAndStaysThere() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.l0(30);
        List<Integer> jobs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            t.tick(c);
            jobs.add(t.jobs);
        }
        assertThat(jobs.subList(0, 4)).containsExactly(4, 6, 8, 8);
        assertThat(t.log).as("no action once at the maximum").hasSize(3);

        Tree m = new Tree().calm();
        Adoc mc = started(m);
        List<Long> batches = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            m.memtables(0.99, 1);
            m.tick(mc);
            batches.add(m.batch / MB);
        }
        assertThat(batches.subList(0, 9)).containsExactly(128L, 192L, 256L, 320L, 384L, 448L, 512L, 512L, 512L);
        assertThat(m.log).hasSize(7);
        assertThat(m.jobs).isEqualTo(2);
    }

    @Test
    void earlyWarningCountsL0AndPendingBytesBeforeRocksDbsThresholds() {
        Tree t = new Tree().calm();
        Adoc c = new Adoc(new Adoc.Settings(SEC, 8, 512 * MB, 2, 64 * MB, 0.75, 0.9, 1, 1));
        assertThat(c.decide(node(t), t.now)).isEmpty();
        t.l0(14);
        assertThat(t.tick(c)).as("14 < 0.75 x 20").isEmpty();
        t.l0(15);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).reason()).contains("15 L0 files >= 15");
        t.l0(2).pending(48L << 30);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).reason()).contains("48GiB >= 48GiB");
    }

    @Test
    void theCurrentValuesComeFromTheSnapshotSoASupersededActionIsRetried() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.l0(25);
        t.now += SEC;
        List<Action> a = c.decide(node(t), t.now); // not applied: another controller won the knob
        assertThat(only(a, Action.SetMaxBackgroundJobs.class).jobs()).isEqualTo(4);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs())
                .as("still 2 on the tree: +2 from 2 again, not 6")
                .isEqualTo(4);
    }

    @Test
    void aValueSetOutsideTheBoundsByAnotherControllerIsLeftAlone() {
        Tree t = new Tree().calm();
        Adoc c = started(t);
        t.jobs = 1; // below the initial 2
        t.batch = 1024 * MB; // above the maximum
        t.l0(25);
        assertThat(only(t.tick(c), Action.SetMaxBackgroundJobs.class).jobs()).isEqualTo(3);
        t.l0(2).memtables(0.95, 1);
        assertThat(t.tick(c))
                .as("MMO: batch already above the maximum is not lowered; threads at 3 halve to the floor 2")
                .singleElement()
                .isInstanceOf(Action.SetMaxBackgroundJobs.class);
        assertThat(t.batch).isEqualTo(1024 * MB);
    }

    @Test
    void eachPartitionIsTunedOnItsOwn() {
        Adoc c = adoc();
        Tree a = new Tree().calm(), b = new Tree().calm();
        b.batch = 32 * MB;
        Map<String, LsmSnapshot> m = new HashMap<>();
        m.put("a", a.snapshot("a"));
        m.put("b", b.snapshot("b"));
        assertThat(c.decide(new NodeSnapshot(0, m, IoStats.EMPTY, IoStats.EMPTY, 0), 0))
                .isEmpty();
        a.l0(25);
        b.memtables(0.95, 1);
        m.put("a", a.snapshot("a"));
        m.put("b", b.snapshot("b"));
        List<Action> out = c.decide(new NodeSnapshot(SEC, m, IoStats.EMPTY, IoStats.EMPTY, 0), SEC);
        assertThat(out)
                .extracting(Action::knob)
                .containsExactlyInAnyOrder("a/max_background_jobs", "b/write_buffer_size");
        assertThat(out)
                .filteredOn(x -> x instanceof Action.SetWriteBufferSize)
                .singleElement()
                .satisfies(
                        x -> assertThat(((Action.SetWriteBufferSize) x).bytes()).isEqualTo(96 * MB));
    }

    @Test
    void theProviderIsRegisteredAndValidatesItsOptions() {
        ControlLoopProvider p = ServiceLoader.load(ControlLoopProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("adoc"))
                .findFirst()
                .orElseThrow();
        Map<String, String> defaults = p.optionSet().defaults().asStrings();
        assertThat(p.create(ctx(defaults)).name()).isEqualTo("adoc");
        assertThatThrownBy(() -> p.optionSet().parse("control.adoc.", Map.of("early.warning", "1.5")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.adoc.early.warning")
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> p.optionSet().parse("control.adoc.", Map.of("max.background.jobs", "many")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.adoc.max.background.jobs")
                .hasMessageContaining("many");
    }

    static ControlContext ctx(Map<String, String> options) {
        return new ControlContext() {
            public Map<String, String> options() {
                return options;
            }

            public List<String> partitions() {
                return List.of("p");
            }

            public com.google.common.base.Ticker ticker() {
                return com.google.common.base.Ticker.systemTicker();
            }

            public long tickNanos() {
                return SEC;
            }

            public void installAdmissionGate(String partition, dev.sluice.core.spi.AdmissionGate gate) {
                throw new UnsupportedOperationException();
            }

            public java.util.Optional<dev.sluice.core.spi.IoControl> io() {
                return java.util.Optional.empty();
            }
        };
    }
}
