package dev.sluice.compaction.deferral;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.compaction.deferral.Deferral.Stage;
import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.IoClassStats;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Scripted snapshots: stage 1, stage 2, hysteresis and resume of the {@code deferral} controller. */
class DeferralTest {
    static final long MB = 1 << 20, SEC = 1_000_000_000L, SOFT = 64L << 30, HARD = 256L << 30;

    /** One partition's tick: background MiB/s, ingest KiB/s, L0 files (seqno = index; busy ones by index). */
    record P(String name, double bgMbps, double ingestKbps, int l0, int... busy) {}

    static List<SstFile> l0(String p, int n, int... busy) {
        List<SstFile> files = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean b = false;
            for (int k : busy) {
                b |= k == i;
            }
            // listed newest first, as RocksDB lists L0
            int seq = n - 1 - i;
            files.add(new SstFile(
                    p + "-" + seq + ".sst",
                    seq,
                    0,
                    MB,
                    seq * 100L,
                    seq * 100L + 99,
                    new byte[] {1},
                    new byte[] {2},
                    b));
        }
        return files;
    }

    static NodeSnapshot snap(long now, double use, P... ps) {
        Map<String, LsmSnapshot> m = new LinkedHashMap<>();
        for (P p : ps) {
            List<SstFile> files = l0(p.name, p.l0, p.busy);
            // busy indexes refer to seq numbers for readability
            files = files.stream()
                    .map(f -> new SstFile(
                            f.name(),
                            f.fileNumber(),
                            0,
                            f.sizeBytes(),
                            f.smallestSeqno(),
                            f.largestSeqno(),
                            f.smallestKey(),
                            f.largestKey(),
                            contains(p.busy, (int) f.fileNumber())))
                    .toList();
            IoStats delta = new IoStats(
                    IoStats.Source.ENV,
                    Map.of(IoClass.COMPACTION_DEEP, new IoClassStats(1, (long) (p.bgMbps * MB), 0, 0)));
            OpCounters ops = new OpCounters(0, 1, 0, 0, 0, (long) (p.ingestKbps * 1024), 0, 0);
            m.put(
                    p.name,
                    new LsmSnapshot(
                            p.name,
                            now,
                            SEC,
                            0,
                            0,
                            64 * MB,
                            0,
                            16 * MB,
                            4,
                            20,
                            36,
                            List.of(
                                    new LevelInfo(0, files.size(), files.size() * MB, 0, files),
                                    new LevelInfo(1, 0, 0, 64 * MB, List.of())),
                            0,
                            SOFT,
                            HARD,
                            StallCondition.NORMAL,
                            0,
                            0,
                            0,
                            4,
                            false,
                            0,
                            0,
                            0,
                            0,
                            ops,
                            ops,
                            delta,
                            delta,
                            Double.POSITIVE_INFINITY,
                            0,
                            -1,
                            0,
                            PartitionHealth.OK,
                            -1,
                            1));
        }
        return new NodeSnapshot(now, m, IoStats.EMPTY, IoStats.EMPTY, use);
    }

    static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    static <T extends Action> List<T> of(List<Action> a, Class<T> c) {
        return a.stream().filter(c::isInstance).map(c::cast).toList();
    }

    final Deferral d = new Deferral(Deferral.Settings.defaults());

    @Test
    void belowTheWatermarkNothingIsSuspended() {
        assertThat(d.decide(snap(SEC, 0.79, new P("a", 50, 10, 3), new P("b", 5, 10, 3)), SEC))
                .isEmpty();
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
    }

    @Test
    void stage1SuspendsOnlyThePartitionsOverTheirBudgetAndLiftsTheirStallLimits() {
        // a: 50 MiB/s background vs 100 KiB/s x 46 = 4.5 MiB/s budget; b: 1 MiB/s vs 4.5 MiB/s.
        List<Action> a = d.decide(snap(SEC, 0.91, new P("a", 50, 100, 2), new P("b", 1, 100, 2)), SEC);
        assertThat(d.stage("a")).isEqualTo(Stage.STAGE1);
        assertThat(d.stage("b")).isEqualTo(Stage.NORMAL);
        assertThat(a).allMatch(x -> x.partition().equals("a"));
        Action.SetDeferralStage st = of(a, Action.SetDeferralStage.class).get(0);
        assertThat(st.stage()).isEqualTo(1);
        assertThat(st.reason()).contains("'a'", "node I/O use 0.91", "high 0.80", "50.00 MiB/s", "4.49 MiB/s");
        assertThat(of(a, Action.SetAutoCompactions.class))
                .singleElement()
                .extracting(Action.SetAutoCompactions::enabled)
                .isEqualTo(false);
        Action.SetPendingCompactionLimits lim =
                of(a, Action.SetPendingCompactionLimits.class).get(0);
        assertThat(lim.softBytes()).isZero();
        assertThat(lim.hardBytes()).isZero();
        assertThat(of(a, Action.CompactFiles.class)).as("L0 has only 2 files").isEmpty();
    }

    @Test
    void maxPartitionsTakesThoseMostOverBudgetFirst() {
        Deferral one = new Deferral(new Deferral.Settings(0.8, 0.6, 3, 46, 1, 0.6, 4, 4, 8, 60 * SEC, 30 * SEC));
        one.decide(snap(SEC, 0.9, new P("a", 20, 100, 0), new P("b", 40, 100, 0)), SEC);
        assertThat(one.stage("b")).isEqualTo(Stage.STAGE1);
        assertThat(one.stage("a")).isEqualTo(Stage.NORMAL);
        one.decide(snap(2 * SEC, 0.9, new P("a", 20, 100, 0), new P("b", 40, 100, 0)), 2 * SEC);
        assertThat(one.stage("a")).as("next violating tick takes the next one").isEqualTo(Stage.STAGE1);
    }

    @Test
    void stage1RunsL0ToL1ItselfOneAtATime() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 2)), SEC);
        List<Action> a = d.decide(snap(2 * SEC, 0.9, new P("a", 50, 100, 5)), 2 * SEC);
        Action.CompactFiles cf = of(a, Action.CompactFiles.class).get(0);
        assertThat(cf.outputLevel()).isEqualTo(1);
        assertThat(cf.fileNames()).hasSize(5);
        assertThat(cf.reason()).contains("stage 1", "L0->L1");
        assertThat(of(d.decide(snap(3 * SEC, 0.9, new P("a", 50, 100, 6)), 3 * SEC), Action.CompactFiles.class))
                .as("the issued files are still in L0: no second L0->L1")
                .isEmpty();
    }

    @Test
    void stage2AtSixtyPercentOfTheStallTriggerMergesContiguousRunsWithinL0() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 2)), SEC);
        // 12 files = 60 % of slowdown trigger 20; file with seq 5 is in a running compaction.
        List<Action> a = d.decide(snap(2 * SEC, 0.9, new P("a", 50, 100, 12, 5)), 2 * SEC);
        assertThat(d.stage("a")).isEqualTo(Stage.STAGE2);
        Action.SetDeferralStage st = of(a, Action.SetDeferralStage.class).get(0);
        assertThat(st.stage()).isEqualTo(2);
        assertThat(st.reason()).contains("'a'", "12 files", "60%", "stall trigger 20", "12.0 files", "0.90");
        List<Action.CompactFiles> cfs = of(a, Action.CompactFiles.class);
        assertThat(cfs).allMatch(c -> c.outputLevel() == 0);
        // seq 0..4 (5 files) before the busy one, 6..11 (6 files) after: two disjoint batches
        assertThat(cfs.get(0).fileNames()).containsExactly("a-0.sst", "a-1.sst", "a-2.sst", "a-3.sst", "a-4.sst");
        assertThat(cfs.get(1).fileNames())
                .containsExactly("a-6.sst", "a-7.sst", "a-8.sst", "a-9.sst", "a-10.sst", "a-11.sst");
        // no L0->L1 any more
        List<Action> next = d.decide(snap(3 * SEC, 0.9, new P("a", 50, 100, 12, 5)), 3 * SEC);
        assertThat(of(next, Action.CompactFiles.class))
                .as("everything idle is already issued")
                .isEmpty();
    }

    @Test
    void runsShorterThanFourFilesAreNotMerged() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 2)), SEC);
        // busy seq 3 and 8: runs 0..2 (3), 4..7 (4), 9..11 (3)
        List<Action> a = d.decide(snap(2 * SEC, 0.9, new P("a", 50, 100, 12, 3, 8)), 2 * SEC);
        assertThat(of(a, Action.CompactFiles.class))
                .singleElement()
                .extracting(Action.CompactFiles::fileNames)
                .isEqualTo(List.of("a-4.sst", "a-5.sst", "a-6.sst", "a-7.sst"));
    }

    @Test
    void hysteresisKeepsTheSuspensionBetweenTheWatermarksAndResumesOldestFirst() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 0), new P("b", 1, 100, 0)), SEC);
        d.decide(snap(2 * SEC, 0.9, new P("a", 1, 100, 0), new P("b", 50, 100, 0)), 2 * SEC);
        assertThat(d.stage("a")).isEqualTo(Stage.STAGE1);
        assertThat(d.stage("b")).isEqualTo(Stage.STAGE1);
        // between low and high: nothing changes, however long
        for (int t = 3; t < 10; t++) {
            assertThat(d.decide(snap(t * SEC, 0.7, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), t * SEC))
                    .isEmpty();
        }
        // two calm ticks, then a spike: the count starts again
        d.decide(snap(10 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 10 * SEC);
        d.decide(snap(11 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 11 * SEC);
        d.decide(snap(12 * SEC, 0.85, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 12 * SEC);
        d.decide(snap(13 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 13 * SEC);
        assertThat(d.decide(snap(14 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 14 * SEC))
                .isEmpty();
        // third calm tick in a row: 'a' (suspended first) resumes; 'b' on the next tick
        List<Action> r = d.decide(snap(15 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 15 * SEC);
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
        assertThat(d.stage("b")).isEqualTo(Stage.STAGE1);
        assertThat(r).allMatch(x -> x.partition().equals("a"));
        Action.SetDeferralStage st = of(r, Action.SetDeferralStage.class).get(0);
        assertThat(st.stage()).isZero();
        assertThat(st.reason()).contains("stage 1 -> 0", "'a'", "0.50", "low 0.60", "3 ticks");
        assertThat(of(r, Action.SetAutoCompactions.class).get(0).enabled()).isTrue();
        Action.SetPendingCompactionLimits lim =
                of(r, Action.SetPendingCompactionLimits.class).get(0);
        assertThat(lim.softBytes()).as("restored").isEqualTo(SOFT);
        assertThat(lim.hardBytes()).isEqualTo(HARD);
        d.decide(snap(16 * SEC, 0.5, new P("a", 1, 100, 0), new P("b", 1, 100, 0)), 16 * SEC);
        assertThat(d.stage("b")).isEqualTo(Stage.NORMAL);
    }

    @Test
    void resumeFromStage2() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 2)), SEC);
        d.decide(snap(2 * SEC, 0.9, new P("a", 50, 100, 13)), 2 * SEC);
        assertThat(d.stage("a")).isEqualTo(Stage.STAGE2);
        for (int t = 3; t <= 5; t++) {
            d.decide(snap(t * SEC, 0.2, new P("a", 0, 100, 3)), t * SEC);
        }
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
        // once resumed, no manual compactions are issued any more
        assertThat(d.decide(snap(6 * SEC, 0.2, new P("a", 0, 100, 12)), 6 * SEC))
                .isEmpty();
    }

    @Test
    void aResumedPartitionIsNotSuspendedAgainWhileItWorksOffItsDebt() {
        d.decide(snap(SEC, 0.9, new P("a", 50, 100, 0)), SEC);
        for (int t = 2; t <= 4; t++) {
            d.decide(snap(t * SEC, 0.2, new P("a", 0, 100, 0)), t * SEC);
        }
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
        // the deferred compactions now fill the device: within the hold (30 s) that is no reason to defer them again
        assertThat(d.decide(snap(10 * SEC, 0.95, new P("a", 50, 100, 0)), 10 * SEC))
                .isEmpty();
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
        d.decide(snap(35 * SEC, 0.95, new P("a", 50, 100, 0)), 35 * SEC);
        assertThat(d.stage("a")).as("after the hold").isEqualTo(Stage.STAGE1);
    }

    @Test
    void overTheWatermarkWithNobodyOverBudgetTheLargestBackgroundUserIsDeferred() {
        d.decide(snap(SEC, 0.95, new P("a", 2, 1000, 0), new P("b", 3, 1000, 0)), SEC);
        assertThat(d.stage("b")).isEqualTo(Stage.STAGE1);
        assertThat(d.stage("a")).isEqualTo(Stage.NORMAL);
    }

    @Test
    void badSettingsAreRefusedNamingTheOptions() {
        assertThatThrownBy(() -> new Deferral.Settings(0.6, 0.8, 3, 46, 0, 0.6, 4, 4, 8, SEC, SEC))
                .hasMessageContaining("control.deferral.low")
                .hasMessageContaining("control.deferral.high");
        assertThatThrownBy(() -> new Deferral.Settings(0.8, 0.6, 3, 46, 0, 0.6, 4, 6, 4, SEC, SEC))
                .hasMessageContaining("intra.l0.max");
    }

    /** A probe (2026-11-29): with env = default, deferral was accepted and never acted (no device budget to read). */
    @Test
    void withoutThePriorityEnvTheNodeIsRefused() {
        dev.sluice.core.SluiceConfig config = dev.sluice.core.SluiceConfig.builder(java.nio.file.Path.of("unused"))
                .env("default")
                .controls("deferral")
                .build();
        assertThatThrownBy(() -> dev.sluice.core.Sluice.validate(config))
                .isInstanceOf(dev.sluice.core.ConfigException.class)
                .hasMessageContaining("'deferral', which acts through the priority Env, but env = default");
    }

    /** No budget use at all while the partitions do I/O: one event says why deferral will not act, once. */
    @Test
    void anEnvWithoutABudgetIsReportedOnce() {
        Deferral d = new Deferral(new Deferral.Settings(0.8, 0.6, 3, 46, 1, 0.6, 4, 4, 8, 60 * SEC, 30 * SEC));
        List<Action> all = new ArrayList<>();
        for (int t = 1; t <= 3 * Deferral.NO_BUDGET_TICKS; t++) {
            List<Action> out = d.decide(snap(t * SEC, 0.0, new P("a", 2, 100, 5)), t * SEC);
            if (t < Deferral.NO_BUDGET_TICKS) {
                assertThat(out).isEmpty();
            }
            all.addAll(out);
        }
        assertThat(all).hasSize(1);
        assertThat(all.get(0)).isInstanceOf(Action.ConfigureIo.class);
        assertThat(((Action.ConfigureIo) all.get(0)).reason()).contains("no device budget use");
        // with a budget in use, nothing is said
        Deferral quiet = new Deferral(new Deferral.Settings(0.8, 0.6, 3, 46, 1, 0.6, 4, 4, 8, 60 * SEC, 30 * SEC));
        for (int t = 1; t <= 3 * Deferral.NO_BUDGET_TICKS; t++) {
            assertThat(quiet.decide(snap(t * SEC, 0.3, new P("a", 2, 100, 5)), t * SEC))
                    .isEmpty();
        }
    }
}
