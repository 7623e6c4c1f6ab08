package dev.sluice.core.sensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LsmSnapshot#sortedRuns()}: every L0 file counts, each non-empty deeper level counts once. */
class SortedRunsTest {
    private static final long MB = 1 << 20;

    static LsmSnapshot withLevels(LevelInfo... levels) {
        return new LsmSnapshot(
                "p",
                0,
                1_000_000_000L,
                0,
                0,
                128 * MB,
                0,
                8 * MB,
                16,
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
                250.0,
                3,
                -1,
                0,
                PartitionHealth.OK,
                4,
                1);
    }

    static LevelInfo level(int n, int files, long bytes) {
        return new LevelInfo(n, files, bytes, 0, List.of());
    }

    @Test
    void l0FilesEachCountAndDeeperLevelsCountOnceWhenNotEmpty() {
        LsmSnapshot s = withLevels(
                level(0, 5, 40 * MB),
                level(1, 0, 0),
                level(2, 0, 0),
                level(3, 0, 0),
                level(4, 0, 0),
                level(5, 9, 70 * MB),
                level(6, 30, 600 * MB));
        assertThat(s.sortedRuns()).isEqualTo(5 + 2);
    }

    @Test
    void anEmptyTreeHasNoSortedRuns() {
        assertThat(withLevels().sortedRuns()).isZero();
        assertThat(withLevels(level(0, 0, 0), level(1, 0, 0)).sortedRuns()).isZero();
    }
}
