package dev.sluice.compaction.cruise;

import static dev.sluice.compaction.cruise.CompactionPriorityTest.keyed;
import static dev.sluice.compaction.cruise.CompactionPriorityTest.level;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.NodeSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code drain.l0.trigger}: while the base level is over the ratio, L0's compaction trigger is raised so that RocksDB's
 * own picker compacts the base level first. The tree is the SP-LSM shape of the 1,800-s run: L0 (transit), L1–L3 empty
 * above a dynamic base level L4 (target 256 MiB), L5, and the last level L6; L0 triggers 1 / 100 / 200.
 */
class CompactionPriorityDrainTest {
    static final long MB = 1 << 20, SEC = 1_000_000_000L;

    /** Two L0 files; a base level L4 of two files of {@code baseMiB} / 2 each, all {@code busy} or all free. */
    static List<LevelInfo> tree(long baseMiB, boolean busy, long l5Target) {
        return List.of(
                level(
                        0,
                        0,
                        keyed("000101.sst", 0, 64 * MB, 0x00, 0xFF, false),
                        keyed("000102.sst", 0, 64 * MB, 0x00, 0xFF, false)),
                level(1, 0),
                level(2, 0),
                level(3, 0),
                level(
                        4,
                        256 * MB,
                        keyed("000041.sst", 4, baseMiB / 2 * MB, 0x00, 0x7F, busy),
                        keyed("000042.sst", 4, baseMiB / 2 * MB, 0x80, 0xFF, busy)),
                level(5, l5Target, keyed("000051.sst", 5, 600 * MB, 0x00, 0xFF, false)),
                level(6, 0, keyed("000061.sst", 6, 3000 * MB, 0x00, 0xFF, false)));
    }

    /**
     * Partition "p": {@code levels}, the 768-MiB buffer's memtables {@code memWatermark} full (L0's 128 MiB come on
     * top), no compaction I/O measured yet, L0 compaction trigger {@code trigger}, slowdown {@code slowdown}, stop 200.
     */
    static NodeSnapshot snap(long now, double memWatermark, int trigger, int slowdown, List<LevelInfo> levels) {
        return CompactionPriorityBudgetTest.snap(now, memWatermark, false, 0, 4, trigger, slowdown, levels);
    }

    static NodeSnapshot snap(long now, double memWatermark, int trigger, List<LevelInfo> levels) {
        return snap(now, memWatermark, trigger, 100, levels);
    }

    /** Ratio 1.5, batches of up to 4 files, 30-s holds, budget watermark 80 %, drain trigger 16. */
    static CompactionPriority draining() {
        return new CompactionPriority(1.5, 4, 1000 * MB, 60 * SEC, 30 * SEC, 0.8, 16);
    }

    static Action.SetL0Triggers triggers(List<Action> actions) {
        assertThat(actions).hasSize(1).first().isInstanceOf(Action.SetL0Triggers.class);
        return (Action.SetL0Triggers) actions.get(0);
    }

    @Test
    void anOversizedBaseLevelRaisesTheL0TriggerInsteadOfABatchAndTheTriggerComesBackAtTheTarget() {
        CompactionPriority c = draining();
        // L4 is 1 GiB against 256 MiB, its files free: without the drain this would be a compactFiles batch
        Action.SetL0Triggers up = triggers(c.decide(snap(0, 0.2, 1, tree(1024, false, 1280 * MB)), 0));
        assertThat(up.compactionTrigger()).isEqualTo(16);
        assertThat(up.slowdownTrigger()).isEqualTo(100);
        assertThat(up.stopTrigger()).isEqualTo(200);
        assertThat(up.reason()).contains("L4 is 4.0x its target").contains("trigger 1 -> 16");
        assertThat(c.draining("p")).isTrue();

        // still over, RocksDB now shows the raised trigger: nothing to do, and no batch or hold for L4 even when a
        // merge holds every file of it
        assertThat(c.decide(snap(SEC, 0.2, 16, tree(1024, false, 1280 * MB)), SEC))
                .isEmpty();
        assertThat(c.decide(snap(2 * SEC, 0.2, 16, tree(1024, true, 1280 * MB)), 2 * SEC))
                .isEmpty();
        assertThat(c.holding("p")).isFalse();

        // between 1x and the ratio: keep draining
        assertThat(c.decide(snap(3 * SEC, 0.2, 16, tree(300, false, 1280 * MB)), 3 * SEC))
                .isEmpty();

        // at its target: the trigger goes back to 1
        Action.SetL0Triggers back = triggers(c.decide(snap(4 * SEC, 0.2, 16, tree(250, false, 1280 * MB)), 4 * SEC));
        assertThat(back.compactionTrigger()).isEqualTo(1);
        assertThat(back.reason()).contains("L4 is at its target again").contains("back to 1");
        assertThat(c.draining("p")).isFalse();
    }

    @Test
    void aFullBufferPutsTheMemoryPathFirstAndBlocksANewDrainUntilItEmpties() {
        CompactionPriority c = draining();
        triggers(c.decide(snap(0, 0.2, 1, tree(1024, false, 1280 * MB)), 0));
        // memtables 70 % + L0's 128 MiB (16.7 %) = 86.7 % >= 80 %
        Action.SetL0Triggers back = triggers(c.decide(snap(SEC, 0.7, 16, tree(1024, true, 1280 * MB)), SEC));
        assertThat(back.compactionTrigger()).isEqualTo(1);
        assertThat(back.reason()).contains("the buffer is 87 % full (budget.watermark 80 %)");

        // still full: no new drain (and, with no headroom, no batch either)
        List<Action> full = c.decide(snap(2 * SEC, 0.7, 1, tree(1024, false, 1280 * MB)), 2 * SEC);
        assertThat(full).noneMatch(a -> a instanceof Action.SetL0Triggers);

        // emptied: drain again
        assertThat(triggers(c.decide(snap(3 * SEC, 0.2, 1, tree(1024, false, 1280 * MB)), 3 * SEC))
                        .compactionTrigger())
                .isEqualTo(16);
    }

    @Test
    void aTriggerSomeoneElseChangedIsLeftAloneForGoodAndBatchesTakeOver() {
        CompactionPriority c = draining();
        triggers(c.decide(snap(0, 0.2, 1, tree(1024, false, 1280 * MB)), 0));
        // an operator (or another controller) set 4 meanwhile
        List<Action> after = c.decide(snap(SEC, 0.2, 4, tree(1024, false, 1280 * MB)), SEC);
        assertThat(after).noneMatch(a -> a instanceof Action.SetL0Triggers);
        assertThat(after).singleElement().isInstanceOf(Action.CompactFiles.class);
        assertThat(c.draining("p")).isFalse();
        // never touched again, even once the level is back at its target and over the ratio once more
        assertThat(c.decide(snap(200 * SEC, 0.2, 4, tree(250, false, 1280 * MB)), 200 * SEC))
                .isEmpty();
        assertThat(c.decide(snap(400 * SEC, 0.2, 4, tree(1024, false, 1280 * MB)), 400 * SEC))
                .noneMatch(a -> a instanceof Action.SetL0Triggers);
    }

    @Test
    void aDeeperOversizedLevelStillGetsItsBatchWhileTheBaseLevelDrains() {
        CompactionPriority c = draining();
        // L5 is 600 MiB against 100 MiB (6x), worse than L4's 4x
        List<Action> a = c.decide(snap(0, 0.2, 1, tree(1024, false, 100 * MB)), 0);
        assertThat(a).hasSize(2);
        assertThat(triggers(a.subList(0, 1)).compactionTrigger()).isEqualTo(16);
        Action.CompactFiles batch = (Action.CompactFiles) a.get(1);
        assertThat(batch.fileNames()).containsExactly("000051.sst");
        assertThat(batch.outputLevel()).isEqualTo(6);
    }

    @Test
    void theRaisedTriggerNeverPassesTheSlowdownTriggerAndATriggerAlreadyThatHighIsLeftAsItIs() {
        Action.SetL0Triggers up = triggers(draining().decide(snap(0, 0.2, 1, 10, tree(1024, false, 1280 * MB)), 0));
        assertThat(up.compactionTrigger()).isEqualTo(10);
        assertThat(up.slowdownTrigger()).isEqualTo(10);

        List<Action> high = draining().decide(snap(0, 0.2, 20, tree(1024, false, 1280 * MB)), 0);
        assertThat(high).noneMatch(a -> a instanceof Action.SetL0Triggers);
        assertThat(high).singleElement().isInstanceOf(Action.CompactFiles.class);
    }

    @Test
    void anEngineWithoutTheTriggerAndTheDefaultOffKeepTheBatches() {
        assertThat(draining().decide(snap(0, 0.2, -1, tree(1024, false, 1280 * MB)), 0))
                .singleElement()
                .isInstanceOf(Action.CompactFiles.class);
        assertThat(new CompactionPriority(1.5, 4, 1000 * MB, 60 * SEC, 30 * SEC, 0.8)
                        .decide(snap(0, 0.2, 1, tree(1024, false, 1280 * MB)), 0))
                .singleElement()
                .isInstanceOf(Action.CompactFiles.class);
    }

    @Test
    void aNegativeDrainTriggerIsRefusedByName() {
        assertThatThrownBy(() -> new CompactionPriority(1.5, 4, 1000 * MB, 60 * SEC, 30 * SEC, 0.8, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("drain.l0.trigger");
    }
}
