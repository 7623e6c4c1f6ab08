package dev.sluice.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link StoreWorkload#randomPool}'s long-at-a-time fill gives the bytes of the byte-at-a-time definition. */
class RandomPoolTest {

    /** The definition: each nextLong of SplittableRandom(seed) stored little-endian, the last one cut. */
    private static byte[] reference(long seed, int size) {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < size; i += 8) {
            long v = r.nextLong();
            for (int j = 0; j < 8 && i + j < size; j++) {
                b[i + j] = (byte) (v >>> (8 * j));
            }
        }
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 13, 4096, (4 << 20) + 1000})
    void sameBytesAsTheDefinition(int size) {
        assertArrayEquals(reference(42, size), StoreWorkload.randomPool(42, size));
        assertArrayEquals(reference(-3, size), StoreWorkload.randomPool(-3, size));
    }
}
