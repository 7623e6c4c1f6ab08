package dev.sluice.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class HotnessTableTest {
    private static byte[] key(long prefix, String suffix) {
        byte[] s = suffix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + s.length).putLong(prefix).put(s).array();
    }

    @Test
    void smoothingFollowsTheFormulaPeriodByPeriod() {
        HotnessTable t =
                HotnessTable.of(List.of(new HotnessTable.Extent(key(0, ""), key(1000, ""), 4L << 20)), 256L << 10, 0.5);
        byte[] k = key(10, "a");
        int b = t.blockOf(k);
        for (int i = 0; i < 10; i++) {
            t.record(k);
        }
        assertThat(t.hotness(b)).isCloseTo(5.0, within(1e-6)); // (1 - α)·0 + α·10
        t.decay();
        assertThat(t.hotness(b)).isCloseTo(2.5, within(1e-6));
        for (int i = 0; i < 4; i++) {
            t.record(k);
        }
        assertThat(t.hotness(b)).isCloseTo(4.5, within(1e-6)); // 0.5·5 + 0.5·4
        t.decay();
        t.decay(); // a period without access
        assertThat(t.hotness(b)).isCloseTo(1.125, within(1e-6));
        for (int i = 0; i < 40; i++) {
            t.decay();
        }
        assertThat(t.hotness(b)).isLessThan(1e-9);
        assertThat(t.hottest(5, 1e-6)).isEmpty();
    }

    @Test
    void hottestBlocksComeFirstAndRebuildKeepsHotness() {
        List<HotnessTable.Extent> files = List.of(new HotnessTable.Extent(key(0, ""), key(1 << 20, ""), 16L << 20));
        HotnessTable t = HotnessTable.of(files, 256L << 10, 0.3);
        assertThat(t.blocks()).isEqualTo(64 + 1 - 1); // 64 pieces, the first starting at prefix 0 = block 0
        byte[] hot = key(900_000, "x");
        byte[] warm = key(100, "y");
        for (int i = 0; i < 30; i++) {
            t.record(hot);
        }
        for (int i = 0; i < 3; i++) {
            t.record(warm);
        }
        assertThat(t.hottest(2, 0)).containsExactly(t.blockOf(hot), t.blockOf(warm));
        // a key lies inside its block's range [start, end)
        int b = t.blockOf(hot);
        assertThat(Arrays.compareUnsigned(t.blockStart(b), hot)).isLessThanOrEqualTo(0);
        assertThat(Arrays.compareUnsigned(hot, t.blockEnd(b))).isLessThan(0);

        HotnessTable finer =
                t.rebuild(List.of(new HotnessTable.Extent(key(0, ""), key(1 << 20, ""), 64L << 20)), 256L << 10);
        assertThat(finer.blocks()).isEqualTo(256);
        assertThat(finer.hotness(finer.blockOf(hot))).isCloseTo(t.hotness(b), within(1e-6));
    }

    @Test
    void shortKeysLandInTheBlockTheirRangeCovers() {
        HotnessTable t = HotnessTable.of(
                List.of(new HotnessTable.Extent(new byte[] {'a'}, new byte[] {'z'}, 10L << 20)), 256L << 10, 0.5);
        for (byte[] k : List.of(new byte[] {'a'}, new byte[] {'m'}, new byte[] {'m', 0}, new byte[] {'y', 'y', 'y'})) {
            int b = t.blockOf(k);
            assertThat(Arrays.compareUnsigned(t.blockStart(b), k))
                    .as("start ≤ key")
                    .isLessThanOrEqualTo(0);
            byte[] end = t.blockEnd(b);
            if (end != null) {
                assertThat(Arrays.compareUnsigned(k, end)).as("key < end").isLessThan(0);
            }
        }
    }

    @Test
    void memoryStaysUnderSixtyFourKiBPerGiBOfSstData() {
        // 1 GiB of SST data: L0 files overlapping everything plus a sorted bottom level, as a real LSM lays it out
        List<HotnessTable.Extent> files = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < 4; i++) {
            files.add(new HotnessTable.Extent(key(0, ""), key(-1L, ""), 64L << 20));
            total += 64L << 20;
        }
        long step = Long.divideUnsigned(-1L, 12);
        for (int i = 0; i < 12; i++) {
            files.add(new HotnessTable.Extent(key(step * i, ""), key(step * (i + 1) - 1, ""), 64L << 20));
            total += 64L << 20;
        }
        assertThat(total).isEqualTo(1L << 30);
        HotnessTable t = HotnessTable.of(files, 256L << 10, 0.5);
        assertThat(t.blocks()).isBetween(3000, 4097); // L0 pieces sharing boundaries merge
        assertThat(t.memoryBytes()).isLessThanOrEqualTo(64L << 10);
    }
}
