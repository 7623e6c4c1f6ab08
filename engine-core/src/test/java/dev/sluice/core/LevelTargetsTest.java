package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Level targets as RocksDB 9.10 computes them (VersionStorageInfo::CalculateBaseBytes), worked by hand. */
class LevelTargetsTest {
    static final long MB = 1 << 20;

    @Test
    void staticTargetsApplyAdditionalOfTheLevelAbove() {
        long[] t = PartitionSampler.targets(new long[7], MB, 8, new int[] {1, 4, 1, 1, 1, 1, 1}, false);
        // L1 = base, L2 = L1 x 8 x additional[1] = 32 MiB (RocksDB's cfstats showed the same), L3 = 256 MiB.
        assertThat(t).containsExactly(0, MB, 32 * MB, 256 * MB, 2048 * MB, 16384 * MB, 131072 * MB);
    }

    @Test
    void dynamicTargetsWithNoDataBelowL0AreNone() {
        assertThat(PartitionSampler.targets(new long[7], 256 * MB, 10, null, true))
                .containsOnly(0);
    }

    @Test
    void dynamicTargetsForASmallLastLevelGiveOnlyTheLastLevelATarget() {
        long[] bytes = {0, 0, 0, 0, 0, 0, 10 * MB};
        assertThat(PartitionSampler.targets(bytes, 256 * MB, 10, null, true))
                .containsExactly(0, 0, 0, 0, 0, 0, 256 * MB);
    }

    @Test
    void dynamicTargetsMoveTheBaseLevelUpAsTheLastLevelGrows() {
        long[] bytes = {0, 0, 0, 0, 0, 0, 10_000 * MB};
        long[] t = PartitionSampler.targets(bytes, 256 * MB, 10, null, true);
        // 10,000 MiB / 10 = 1,000 MiB > base: base level moves up to L4 with 100 MiB, raised to base (256 MiB).
        assertThat(t[3]).isZero();
        assertThat(t[4]).isEqualTo(256 * MB);
        assertThat(t[5]).isEqualTo(1000 * MB);
        assertThat(t[6]).isEqualTo(10_000 * MB);
    }
}
