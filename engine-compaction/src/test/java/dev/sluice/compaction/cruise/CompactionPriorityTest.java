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
                -1);
        return new NodeSnapshot(now, Map.of("p", s), IoStats.EMPTY, IoStats.EMPTY, 0);
    }

    final CompactionPriority c = new CompactionPriority(5, 2, 1000 * MB, 60 * SEC);

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

    @Test
    void theMostOversizedLevelIsCompactedIntoTheNextLargestFilesFirstSkippingBusyOnes() {
        NodeSnapshot s = snap(
                0,
                level(0, 0),
                level(
                        1,
                        10 * MB,
                        file("000011.sst", 1, 30 * MB, false),
                        file("000012.sst", 1, 40 * MB, true),
                        file("000013.sst", 1, 20 * MB, false),
                        file("000014.sst", 1, 10 * MB, false)),
                level(2, 100 * MB, file("000020.sst", 2, 900 * MB, false)),
                level(3, 1000 * MB));
        List<Action> a = c.decide(s, 0);
        assertThat(a).hasSize(1);
        Action.CompactFiles cf = (Action.CompactFiles) a.get(0);
        assertThat(cf.outputLevel()).isEqualTo(2);
        assertThat(cf.fileNames()).containsExactly("000011.sst", "000013.sst");
        assertThat(cf.reason()).contains("L1 is 10.0x its target");
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
}
