package dev.sluice.core.sensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The levels' excess ({@link LevelInfo#excessBytes}): which levels count, and that a level is placed by its number. */
class LevelInfoTest {
    static LevelInfo level(int level, long bytes, long target) {
        return new LevelInfo(level, 1, bytes, target, List.of());
    }

    @Test
    void countsOnlyTheLevelsBetweenL0AndTheLastNonEmptyOneAboveTheirTargets() {
        List<LevelInfo> levels = List.of(
                level(0, 900, 0), // L0: never debt
                level(1, 400, 256), // 144 over
                level(2, 100, 1280), // under its target
                level(3, 9000, 6400), // the last non-empty level: never over
                level(4, 0, 0));
        assertThat(LevelInfo.excessBytes(levels)).isEqualTo(144);
    }

    @Test
    void placesEachLevelByItsNumberWhateverTheListsOrderOrGaps() {
        // L2 missing and the list out of order: L1 is 100 over, L3 (the last non-empty level) is not counted.
        List<LevelInfo> levels = List.of(level(1, 356, 256), level(3, 5000, 1000), level(0, 50, 0));
        assertThat(LevelInfo.excessBytes(levels)).isEqualTo(100);
        assertThat(LevelInfo.excessBytes(List.of())).isZero();
    }
}
