package dev.sluice.compaction.cruise;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactionPriorityTest {
    static final long MB = 1 << 20, SEC = 1_000_000_000L;

    static SstFile file(String name, int level, long size, boolean busy) {
        return new SstFile(
                name, Long.parseLong(name.substring(0, 6)), level, size, 1, 2, new byte[] {1}, new byte[] {2}, busy);
    }

    static LevelInfo level(int n, long target, SstFile... files) {
        long bytes = 0;
        for (SstFile f : files) {
            bytes += f.sizeBytes();
        }
        return new LevelInfo(n, files.length, bytes, target, List.of(files));
    }

    static NodeSnapshot snap(long now, LevelInfo... levels) {
        return snap(now, false, levels);
    }

    /** A snapshot of partition "p" (slowdown trigger 20) whose automatic compactions are off when {@code autoOff}. */
    static NodeSnapshot snap(long now, boolean autoOff, LevelInfo... levels) {
        LsmSnapshot s = new LsmSnapshot(
                "p",
                now,
                SEC,
                0,
                0,
                128 * MB,
                0,
                64 * MB,
                2,
                20,
                36,
                List.of(levels),
                0,
                0,
                0,
                StallCondition.NORMAL,
                0,
                0,
                0,
                2,
                autoOff,
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
                dev.sluice.core.sensor.PartitionHealth.OK,
                -1,
                1);
        return new NodeSnapshot(now, Map.of("p", s), IoStats.EMPTY, IoStats.EMPTY, 0);
    }

    final CompactionPriority c = new CompactionPriority(5, 2, 1000 * MB, 60 * SEC, 30 * SEC);

    @Test
    void aLevelWithinFiveTimesItsTargetIsLeftToRocksDb() {
        assertThat(c.decide(
                        snap(
                                0,
                                level(0, 0),
                                level(1, 10 * MB, file("000010.sst", 1, 49 * MB, false)),
                                level(2, 100 * MB)),
                        0))
                .isEmpty();
    }

    /** A file of {@code level} holding the keys [{@code from}, {@code to}] (one byte each). */
    static SstFile keyed(String name, int level, long size, int from, int to, boolean busy) {
        return new SstFile(
                name,
                Long.parseLong(name.substring(0, 6)),
                level,
                size,
                1,
                2,
                new byte[] {(byte) from},
                new byte[] {(byte) to},
                busy);
    }

    @Test
    void theMostOversizedLevelIsCompactedIntoTheNextAsTheLargestRunOfAdjacentFreeFiles() {
        NodeSnapshot s = snap(
                0,
                level(0, 0),
                level(
                        1,
                        10 * MB,
                        keyed("000011.sst", 1, 30 * MB, 0x10, 0x1F, false),
                        keyed("000012.sst", 1, 40 * MB, 0x20, 0x2F, true),
                        keyed("000013.sst", 1, 20 * MB, 0x30, 0x3F, false),
                        keyed("000014.sst", 1, 15 * MB, 0x40, 0x4F, false)),
                level(2, 100 * MB, keyed("000020.sst", 2, 900 * MB, 0x00, 0xFF, false)),
                level(3, 1000 * MB));
        List<Action> a = c.decide(s, 0);
        assertThat(a).hasSize(1);
        Action.CompactFiles cf = (Action.CompactFiles) a.get(0);
        assertThat(cf.outputLevel()).isEqualTo(2);
        assertThat(cf.fileNames())
                .as("not the two largest free files (11 and 13): RocksDB would add the busy 12 between them")
                .containsExactly("000013.sst", "000014.sst");
        assertThat(cf.reason()).contains("L1 is 10.5x its target");
    }

    @Test
    void aRunIsCutByMaxFilesAndMaxBytesButOneFileMayExceedMaxBytes() {
        LevelInfo l1 = level(
                1,
                10 * MB,
                keyed("000011.sst", 1, 30 * MB, 0x10, 0x1F, false),
                keyed("000012.sst", 1, 5 * MB, 0x20, 0x2F, false),
                keyed("000013.sst", 1, 30 * MB, 0x30, 0x3F, false));
        NodeSnapshot s = snap(0, level(0, 0), l1, level(2, 100 * MB), level(3, 1000 * MB));
        assertThat(((Action.CompactFiles) c.decide(s, 0).get(0)).fileNames())
                .as("max.files 2: a run of two adjacent files, never 11 and 13 apart")
                .containsExactly("000011.sst", "000012.sst");
        CompactionPriority small = new CompactionPriority(5, 4, 20 * MB, 60 * SEC, 30 * SEC);
        assertThat(((Action.CompactFiles) small.decide(s, 0).get(0)).fileNames())
                .as("max.bytes 20 MiB: one 30-MiB file alone")
                .containsExactly("000011.sst");
    }

    @Test
    void aRunOverABusyFileOfTheNextLevelIsNotChosen() {
        NodeSnapshot s = snap(
                0,
                level(0, 0),
                level(
                        1,
                        10 * MB,
                        keyed("000011.sst", 1, 40 * MB, 0x10, 0x1F, false),
                        keyed("000013.sst", 1, 20 * MB, 0x30, 0x3F, false)),
                level(
                        2,
                        100 * MB,
                        keyed("000021.sst", 2, 90 * MB, 0x18, 0x20, true),
                        keyed("000022.sst", 2, 90 * MB, 0x30, 0x3F, false)),
                level(3, 1000 * MB));
        assertThat(((Action.CompactFiles) c.decide(s, 0).get(0)).fileNames())
                .as("RocksDB refuses a batch whose span covers a next-level file in another compaction")
                .containsExactly("000013.sst");
    }

    /** A file without key bounds, as a Cassandra table's sstables are sampled. */
    static SstFile unbounded(String name, long size, boolean busy) {
        return new SstFile(name, Long.parseLong(name.substring(0, 6)), 1, size, 0, 0, new byte[0], new byte[0], busy);
    }

    @Test
    void filesWithoutKeyBoundsArePickedLargestFirstSkippingBusyOnes() {
        NodeSnapshot cassandra = snap(
                0,
                level(0, 0),
                level(
                        1,
                        10 * MB,
                        unbounded("000011.sst", 30 * MB, false),
                        unbounded("000012.sst", 40 * MB, true),
                        unbounded("000013.sst", 20 * MB, false),
                        unbounded("000014.sst", 10 * MB, false)),
                level(2, 100 * MB));
        assertThat(((Action.CompactFiles) c.decide(cassandra, 0).get(0)).fileNames())
                .as("no key order and no span to keep together")
                .containsExactly("000011.sst", "000013.sst");
    }

    @Test
    void aPendingBatchBlocksTheNextUntilItsFilesLeaveTheLevelOrItTimesOut() {
        LevelInfo fat = level(1, 10 * MB, file("000011.sst", 1, 30 * MB, false), file("000013.sst", 1, 30 * MB, false));
        assertThat(c.decide(snap(0, level(0, 0), fat, level(2, 100 * MB)), 0)).hasSize(1);
        assertThat(c.decide(snap(SEC, level(0, 0), fat, level(2, 100 * MB)), SEC))
                .as("still pending")
                .isEmpty();
        LevelInfo stillFat = level(1, 10 * MB, file("000030.sst", 1, 60 * MB, false));
        List<Action> next = c.decide(snap(2 * SEC, level(0, 0), stillFat, level(2, 100 * MB)), 2 * SEC);
        assertThat(next).hasSize(1);
        assertThat(((Action.CompactFiles) next.get(0)).fileNames()).containsExactly("000030.sst");
        List<Action> afterTimeout =
                new ArrayList<>(c.decide(snap(70 * SEC, level(0, 0), stillFat, level(2, 100 * MB)), 70 * SEC));
        assertThat(afterTimeout).as("timed out: tried again").hasSize(1);
    }

    @Test
    void theLastLevelAndLevelsWithoutTargetAreNeverChosen() {
        assertThat(c.decide(
                        snap(
                                0,
                                level(0, 0),
                                level(1, 0, file("000011.sst", 1, 500 * MB, false)),
                                level(2, 10 * MB, file("000021.sst", 2, 500 * MB, false))),
                        0))
                .isEmpty();
    }

    /** L1 at 10x its target with both files in the running L0->L1 merge, over L2; {@code l0} L0 files. */
    static NodeSnapshot blocked(long now, boolean autoOff, int l0) {
        return snap(now, autoOff, l0Level(l0), busyL1(true), level(2, 100 * MB));
    }

    static LevelInfo l0Level(int files) {
        SstFile[] fs = new SstFile[files];
        for (int i = 0; i < files; i++) {
            fs[i] = file(String.format("%06d.sst", 100 + i), 0, 64 * MB, i == 0);
        }
        return level(0, 0, fs);
    }

    static LevelInfo busyL1(boolean busy) {
        return level(1, 10 * MB, file("000011.sst", 1, 50 * MB, busy), file("000012.sst", 1, 50 * MB, busy));
    }

    static Action.SetAutoCompactions auto(List<Action> a) {
        assertThat(a).hasSize(1).first().isInstanceOf(Action.SetAutoCompactions.class);
        return (Action.SetAutoCompactions) a.get(0);
    }

    @Test
    void whenAMergeHoldsTheWholeOversizedLevelAutomaticCompactionsPauseUntilItsBatchHasStarted() {
        Action.SetAutoCompactions off = auto(c.decide(blocked(0, false, 2), 0));
        assertThat(off.enabled()).isFalse();
        assertThat(off.reason()).contains("L1 is 10.0x", "every file of it is in a running compaction");
        assertThat(c.holding("p")).isTrue();
        // the merge still runs (RocksDB reports auto compactions off now): nothing more to do
        assertThat(c.decide(blocked(SEC, true, 3), SEC)).isEmpty();
        // the merge ended: L1's files are free, the batch goes first
        List<Action> batch = c.decide(snap(2 * SEC, true, l0Level(3), busyL1(false), level(2, 100 * MB)), 2 * SEC);
        assertThat(batch).hasSize(1);
        assertThat(((Action.CompactFiles) batch.get(0)).fileNames()).containsExactly("000011.sst", "000012.sst");
        assertThat(c.holding("p")).as("held until the batch is seen running").isTrue();
        // the batch now holds L1's files: automatic compactions resume (the next L0->L1 merge must wait for it)
        Action.SetAutoCompactions on = auto(c.decide(blocked(3 * SEC, true, 3), 3 * SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("prioritized compaction started");
        assertThat(c.holding("p")).isFalse();
        assertThat(c.decide(blocked(4 * SEC, false, 3), 4 * SEC))
                .as("the batch is pending: no new hold while it runs")
                .isEmpty();
    }

    @Test
    void aHoldEndsAfterHoldSecondsWithoutFreeFiles() {
        assertThat(auto(c.decide(blocked(0, false, 2), 0)).enabled()).isFalse();
        assertThat(c.decide(blocked(29 * SEC, true, 2), 29 * SEC)).isEmpty();
        Action.SetAutoCompactions on = auto(c.decide(blocked(30 * SEC, true, 2), 30 * SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("expired");
        assertThat(c.decide(blocked(31 * SEC, false, 2), 31 * SEC))
                .as("an expired hold is not renewed at once: compactions are on for another hold.seconds")
                .isEmpty();
        assertThat(auto(c.decide(blocked(60 * SEC, false, 2), 60 * SEC)).enabled())
                .as("still blocked and over the ratio after the pause: a new hold")
                .isFalse();
    }

    @Test
    void aHoldNeverLetsL0ReachHalfTheSlowdownTrigger() {
        assertThat(c.decide(blocked(0, false, 10), 0))
                .as("L0 already at 10 files = 20 / 2: no hold")
                .isEmpty();
        assertThat(auto(c.decide(blocked(SEC, false, 9), SEC)).enabled()).isFalse();
        Action.SetAutoCompactions on = auto(c.decide(blocked(2 * SEC, true, 10), 2 * SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("L0 has 10 files");
    }

    @Test
    void aHoldEndsWhenNoLevelIsOverTheRatioAnyMore() {
        assertThat(auto(c.decide(blocked(0, false, 2), 0)).enabled()).isFalse();
        LevelInfo shrunk = level(1, 10 * MB, file("000011.sst", 1, 40 * MB, true));
        Action.SetAutoCompactions on = auto(c.decide(snap(SEC, true, l0Level(2), shrunk, level(2, 100 * MB)), SEC));
        assertThat(on.enabled()).isTrue();
        assertThat(on.reason()).contains("no level is over");
    }

    @Test
    void itNeverTouchesAutomaticCompactionsItDidNotSwitchOff() {
        assertThat(c.decide(blocked(0, true, 2), 0))
                .as("already off (e.g. a deferral controller): no hold, and nothing to undo later")
                .isEmpty();
        assertThat(c.holding("p")).isFalse();
        assertThat(auto(c.decide(blocked(SEC, false, 2), SEC)).enabled()).isFalse();
        assertThat(c.decide(blocked(2 * SEC, false, 2), 2 * SEC))
                .as("someone switched them back on: the hold is dropped without an action")
                .isEmpty();
        assertThat(c.holding("p")).isFalse();
        assertThat(c.decide(blocked(20 * SEC, false, 2), 20 * SEC))
                .as("and not taken again while the override is recent")
                .isEmpty();
        assertThat(auto(c.decide(blocked(32 * SEC, false, 2), 32 * SEC)).enabled())
                .isFalse();
    }

    @Test
    void holdSecondsZeroNeverPauses() {
        CompactionPriority noHold = new CompactionPriority(5, 2, 1000 * MB, 60 * SEC, 0);
        assertThat(noHold.decide(blocked(0, false, 2), 0)).isEmpty();
        assertThat(noHold.holding("p")).isFalse();
    }
}
