package dev.sluice.compaction.cruise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.core.ConfigException;
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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code budget.watermark}: a prioritized batch sized by the memory buffer's headroom. The tree: L1 (target 10 MiB)
 * holds a 64-MiB file that overlaps two 64-MiB files of L2 and a 70-MiB file that overlaps one 200-MiB file. So
 * compacting the first costs 2 × (64 + 128) = 384 MiB of I/O, the second 540, both 924. The buffer is 768 MiB, users write 4 MiB/s and
 * compactions moved 50 MiB/s: a batch may cost 12.5 × the headroom below the budget watermark.
 */
class CompactionPriorityBudgetTest {
    static final long MB = 1 << 20, SEC = 1_000_000_000L;

    static SstFile file(String name, int level, long size, int from, int to, boolean busy) {
        return CompactionPriorityTest.keyed(name, level, size, from, to, busy);
    }

    static LevelInfo level(int n, long target, SstFile... files) {
        return CompactionPriorityTest.level(n, target, files);
    }

    /** The tree of the class doc: L1 is the base level, 134 MiB against a 10-MiB target. */
    static List<LevelInfo> tree(boolean busy) {
        return List.of(
                level(0, 0),
                level(
                        1,
                        10 * MB,
                        file("000011.sst", 1, 64 * MB, 0x10, 0x1F, busy),
                        file("000012.sst", 1, 70 * MB, 0xA0, 0xAF, busy)),
                level(
                        2,
                        1000 * MB,
                        file("000021.sst", 2, 64 * MB, 0x10, 0x17, false),
                        file("000022.sst", 2, 64 * MB, 0x18, 0x1F, false),
                        file("000023.sst", 2, 200 * MB, 0xA0, 0xAF, false)));
    }

    /**
     * Partition "p" with {@code levels}, the 768-MiB buffer {@code watermark} full, {@code writtenMiB} of user writes and
     * {@code compactionMiB} of compaction I/O in the 1-s tick (0 = none measured).
     */
    static NodeSnapshot snap(
            long now, double watermark, boolean autoOff, long compactionMiB, long writtenMiB, List<LevelInfo> levels) {
        return snap(now, watermark, autoOff, compactionMiB, writtenMiB, 1, 100, levels);
    }

    /** As above, with L0 compaction trigger {@code trigger} and slowdown trigger {@code slowdown} (stop 200). */
    static NodeSnapshot snap(
            long now,
            double watermark,
            boolean autoOff,
            long compactionMiB,
            long writtenMiB,
            int trigger,
            int slowdown,
            List<LevelInfo> levels) {
        IoStats io = compactionMiB > 0
                ? new IoStats(
                        IoStats.Source.ENV,
                        Map.of(IoClass.COMPACTION_L0, new IoClassStats(100, compactionMiB * MB, 0, 0)))
                : IoStats.EMPTY;
        LsmSnapshot s = new LsmSnapshot(
                "p",
                now,
                SEC,
                (long) (watermark * 768 * MB),
                0,
                768 * MB,
                0,
                64 * MB,
                12,
                slowdown,
                200,
                levels,
                0,
                0,
                0,
                StallCondition.NORMAL,
                0,
                0,
                0,
                4,
                autoOff,
                0,
                0,
                0,
                0,
                OpCounters.ZERO,
                new OpCounters(0, 4096, 0, 0, 0, writtenMiB * MB, 0, 0),
                io,
                io,
                Double.POSITIVE_INFINITY,
                0,
                -1,
                0,
                PartitionHealth.OK,
                trigger,
                2);
        return new NodeSnapshot(now, Map.of("p", s), IoStats.EMPTY, IoStats.EMPTY, 0);
    }

    /** The class doc's tree at 50 MiB/s of compaction I/O and 4 MiB/s of writes. */
    static NodeSnapshot snap(long now, double watermark, boolean busy, boolean autoOff) {
        return snap(now, watermark, autoOff, 50, 4, tree(busy));
    }

    static CompactionPriority budgeted(double watermark) {
        return new CompactionPriority(5, 2, 1000 * MB, 60 * SEC, 30 * SEC, watermark);
    }

    static Action.CompactFiles compaction(List<Action> actions) {
        assertThat(actions).hasSize(1).first().isInstanceOf(Action.CompactFiles.class);
        return (Action.CompactFiles) actions.get(0);
    }

    static Action.SetAutoCompactions auto(List<Action> actions) {
        assertThat(actions).hasSize(1).first().isInstanceOf(Action.SetAutoCompactions.class);
        return (Action.SetAutoCompactions) actions.get(0);
    }

    @Test
    void theBatchTakesWhatEndsBeforeTheBufferReachesTheBudgetWatermark() {
        // half full: 0.3 x 768 MiB of headroom fills in 57.6 s, in which compaction moves 2,880 MiB: both files fit
        Action.CompactFiles roomy = compaction(budgeted(0.8).decide(snap(0, 0.5, false, false), 0));
        assertThat(roomy.fileNames()).containsExactly("000011.sst", "000012.sst");
        assertThat(roomy.outputLevel()).isEqualTo(2);
        assertThat(roomy.reason()).contains("about 924 MiB of I/O, budget 2880 MiB before the buffer reaches 80 %");

        // 75 % full: 38.4 MiB of headroom, 480 MiB of I/O: the 64-MiB file (384) fits; the 70-MiB one (540) and both
        // (924) do not
        Action.CompactFiles tight = compaction(budgeted(0.8).decide(snap(0, 0.75, false, false), 0));
        assertThat(tight.fileNames()).containsExactly("000011.sst");
        assertThat(tight.reason()).contains("compact 1 of its files").contains("about 384 MiB of I/O, budget 480 MiB");
    }

    @Test
    void aBufferAtOrAboveTheBudgetWatermarkStartsNothing() {
        CompactionPriority c = budgeted(0.75);
        NodeSnapshot at = snap(0, 0.75, false, false); // 576 MiB of 768: exactly 75 %
        assertThat(c.allowedIoBytes(at.partitions().get("p"), tree(false).get(1)))
                .isZero();
        assertThat(c.decide(at, 0)).isEmpty();
        assertThat(budgeted(0.8).decide(snap(0, 0.85, false, false), 0)).isEmpty();
    }

    @Test
    void aWriteStopDoesNotOpenTheBudget() {
        // no write in the tick (a write stop, or a gate that holds everything back) with the buffer over the watermark
        assertThat(budgeted(0.8).decide(snap(0, 0.85, false, 50, 0, tree(false)), 0))
                .isEmpty();
        // below it, the smoothed write rate of earlier ticks still bounds the batch
        CompactionPriority c = budgeted(0.8);
        c.decide(snap(0, 0.9, false, false), 0);
        NodeSnapshot stop = snap(SEC, 0.75, false, 50, 0, tree(false));
        c.decide(stop, SEC);
        assertThat(c.allowedIoBytes(stop.partitions().get("p"), tree(false).get(1)))
                .as("write rate 0.7 x 4 MiB/s after one silent tick: 38.4 MiB / 2.8 MiB/s x 50 MiB/s")
                .isCloseTo(38.4 / 2.8 * 50 * MB, within(1e3));
    }

    @Test
    void withoutAMeasuredCompactionRateTheBudgetBoundsNothing() {
        Action.CompactFiles c = compaction(budgeted(0.8).decide(snap(0, 0.5, false, 0, 4, tree(false)), 0));
        assertThat(c.fileNames()).hasSize(2);
        assertThat(c.reason()).doesNotContain("budget");
    }

    @Test
    void theCompactionRateIsSmoothedOverTheTicksThatHadCompactionIo() {
        CompactionPriority c = budgeted(0.8);
        c.decide(snap(0, 0.9, false, 50, 4, tree(false)), 0);
        c.decide(snap(SEC, 0.9, false, 0, 4, tree(false)), SEC); // no compaction I/O: the rate stays
        NodeSnapshot slow = snap(2 * SEC, 0.9, false, 10, 4, tree(false));
        c.decide(slow, 2 * SEC);
        NodeSnapshot at75 = snap(3 * SEC, 0.75, false, 0, 4, tree(false));
        assertThat(c.allowedIoBytes(at75.partitions().get("p"), tree(false).get(1)))
                .as("0.7 x 50 + 0.3 x 10 = 38 MiB/s for 38.4 MiB / 4 MiB/s = 9.6 s")
                .isCloseTo(38 * 9.6 * MB, within(1e3));
    }

    @Test
    void aHoldEndsWhenTheBufferLeavesNoRoomForEvenOneFile() {
        CompactionPriority c = budgeted(0.8);
        assertThat(auto(c.decide(snap(0, 0.5, true, false), 0)).enabled()).isFalse();
        assertThat(c.holding("p")).isTrue();
        assertThat(c.decide(snap(SEC, 0.6, true, true), SEC))
                .as("still room: the hold stays")
                .isEmpty();

        Action.SetAutoCompactions on = auto(c.decide(snap(2 * SEC, 0.85, true, true), 2 * SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("no room").contains("85 % full");
        assertThat(c.holding("p")).isFalse();
    }

    @Test
    void aHoldEndsWhenTheFilesComeFreeButNotEvenOneFits() {
        CompactionPriority c = budgeted(0.8);
        assertThat(auto(c.decide(snap(0, 0.5, true, false), 0)).enabled()).isFalse();
        // 79.5 %: 3.8 MiB of headroom, 48 MiB of I/O: less than any file's compaction
        Action.SetAutoCompactions on = auto(c.decide(snap(SEC, 0.795, false, true), SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("no room");
    }

    @Test
    void noHoldStartsWhenNotEvenOneFileWouldFit() {
        assertThat(budgeted(0.8).decide(snap(0, 0.85, true, false), 0)).isEmpty();
        assertThat(budgeted(0.8).decide(snap(0, 0.5, true, false), 0)).hasSize(1);
    }

    @Test
    void onlyTheBaseLevelIsBudgeted() {
        // L1 is the base level and within its target; L2 is 6x its 100-MiB target over L3: a batch of L2 does not
        // block the memory->L1 merge, so a full buffer does not stop it
        List<LevelInfo> deep = List.of(
                level(0, 0),
                level(1, 100 * MB, file("000011.sst", 1, 50 * MB, 0x10, 0x1F, false)),
                level(2, 100 * MB, file("000021.sst", 2, 600 * MB, 0x10, 0x1F, false)),
                level(3, 1000 * MB, file("000031.sst", 3, 900 * MB, 0x10, 0x1F, false)));
        Action.CompactFiles c = compaction(budgeted(0.8).decide(snap(0, 0.85, false, 50, 4, deep), 0));
        assertThat(c.fileNames()).containsExactly("000021.sst");
        assertThat(c.outputLevel()).isEqualTo(3);
        assertThat(c.reason()).doesNotContain("budget");
    }

    @Test
    void theCostCountsTheNextLevelOverTheRunsWholeKeySpan() {
        LsmSnapshot s = snap(0, 0.5, false, false).partitions().get("p");
        List<SstFile> l1 = s.levels().get(1).files();
        assertThat(CompactionPriority.batchIoBytes(s, 1, List.of(l1.get(0)))).isEqualTo(2 * (64 + 128) * MB);
        assertThat(CompactionPriority.batchIoBytes(s, 1, List.of(l1.get(1)))).isEqualTo(2 * (70 + 200) * MB);
        assertThat(CompactionPriority.batchIoBytes(s, 1, l1)).isEqualTo(2 * (134 + 328) * MB);
        SstFile between = file("000024.sst", 2, 100 * MB, 0x50, 0x5F, false);
        List<LevelInfo> gap = List.of(tree(false).get(0), tree(false).get(1), level(2, 1000 * MB, between));
        LsmSnapshot g = snap(0, 0.5, false, 50, 4, gap).partitions().get("p");
        assertThat(CompactionPriority.batchIoBytes(g, 1, l1))
                .as("a next-level file between the two files' ranges is inside the span")
                .isEqualTo(2 * (134 + 100) * MB);
        assertThat(CompactionPriority.batchIoBytes(g, 1, List.of(l1.get(0)))).isEqualTo(2 * 64 * MB);
    }

    @Test
    void keyRangesCompareAsUnsignedBytes() {
        SstFile high = file("000002.sst", 2, MB, 0x80, 0xFF, false);
        SstFile across = file("000003.sst", 2, MB, 0x70, 0x90, false);
        byte[] lo = {0x10}, hi = {0x7F};
        assertThat(CompactionPriority.overlaps(lo, hi, high)).isFalse();
        assertThat(CompactionPriority.overlaps(lo, hi, across)).isTrue();
        assertThat(CompactionPriority.overlaps(new byte[] {(byte) 0x90}, new byte[] {(byte) 0xA0}, across))
                .isTrue();
        assertThat(CompactionPriority.overlaps(new byte[] {(byte) 0x91}, new byte[] {(byte) 0xA0}, across))
                .isFalse();
    }

    @Test
    void aBudgetWatermarkOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new CompactionPriority(5, 2, MB, SEC, SEC, 1.5))
                .hasMessageContaining("budget.watermark");
        assertThatThrownBy(() -> new CompactionPriority(5, 2, MB, SEC, SEC, Double.NaN))
                .hasMessageContaining("budget.watermark");
        assertThatThrownBy(() -> new CompactionPriorityProvider()
                        .optionSet()
                        .parse("control.cruise-compaction-priority.", Map.of("budget.watermark", "1.5")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.cruise-compaction-priority.budget.watermark");
    }
}
