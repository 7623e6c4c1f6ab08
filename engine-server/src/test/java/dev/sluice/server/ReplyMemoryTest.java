package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The server-wide reply bound's arithmetic: a floor per partition from half the cap, the other half shared. */
class ReplyMemoryTest {
    private static final long MIB = 1 << 20;

    @Test
    void aPartitionThatFillsTheSharedHalfLeavesTheOthersTheirFloor() {
        ReplyMemory m = new ReplyMemory(16 * MIB, List.of("alpha", "beta"));
        ReplyMemory.Share alpha = m.share("alpha");
        ReplyMemory.Share beta = m.share("beta");
        long alphaTook = 0;
        while (m.roomFor(alpha, MIB)) {
            m.add(alpha, MIB);
            alphaTook += MIB;
        }
        assertThat(alphaTook)
                .as("its floor (4 MiB) and the shared half (8 MiB)")
                .isEqualTo(12 * MIB);
        for (int i = 0; i < 4; i++) {
            assertThat(m.roomFor(beta, MIB)).as("beta's floor, MiB %d", i).isTrue();
            m.add(beta, MIB);
        }
        assertThat(m.roomFor(beta, MIB))
                .as("beyond its floor the shared half is full")
                .isFalse();
        assertThat(m.held()).isEqualTo(16 * MIB).isEqualTo(m.cap());

        m.add(alpha, -3 * MIB); // alpha at 9 MiB: 5 above its floor, 3 MiB of the shared half free
        assertThat(m.roomFor(beta, 3 * MIB)).isTrue();
        assertThat(m.roomFor(beta, 3 * MIB + 1)).isFalse();
        m.add(alpha, -9 * MIB);
        assertThat(m.roomFor(beta, 8 * MIB))
                .as("all the shared half, on top of its floor")
                .isTrue();
        assertThat(m.roomFor(beta, 8 * MIB + 1)).isFalse();
    }

    @Test
    void oneHolderOfManyBytesAndBytesWithinTheFloorNeverPassTheCap() {
        ReplyMemory m = new ReplyMemory(10 * MIB, List.of("a", "b", "c"));
        // each floor 10/6 MiB (rounded down), the shared part the rest
        for (String p : List.of("a", "b", "c")) {
            while (m.roomFor(m.share(p), 1000)) {
                m.add(m.share(p), 1000);
            }
        }
        assertThat(m.held()).isLessThanOrEqualTo(m.cap()).isGreaterThan(m.cap() - 3 * 1000);
    }

    @Test
    void withOnePartitionTheWholeCapIsItsAndAnUnknownPartitionGetsOnlyTheSharedPart() {
        ReplyMemory one = new ReplyMemory(8 * MIB, List.of("default"));
        assertThat(one.roomFor(one.share("default"), 8 * MIB)).isTrue();
        assertThat(one.roomFor(one.share("default"), 8 * MIB + 1)).isFalse();

        ReplyMemory two = new ReplyMemory(8 * MIB, List.of("a", "b"));
        assertThat(two.roomFor(two.share("gone"), 4 * MIB)).isTrue();
        assertThat(two.roomFor(two.share("gone"), 4 * MIB + 1)).isFalse();
        assertThat(two.roomFor(two.share(null), 4 * MIB + 1)).isFalse();
    }

    @Test
    void aConnectionRefusedRoomIsWokenWhenAnotherPartitionReleasesBytes() {
        ReplyMemory m = new ReplyMemory(4 * MIB, List.of("a", "b"));
        m.add(m.share("a"), 3 * MIB); // a: its 1-MiB floor and the whole 2-MiB shared part
        AtomicInteger woken = new AtomicInteger();
        assertThat(m.roomFor(m.share("b"), 2 * MIB, woken::incrementAndGet)).isFalse();
        m.add(m.share("a"), 1); // not a release
        assertThat(woken).hasValue(0);
        m.add(m.share("a"), -MIB - 1);
        assertThat(woken).hasValue(1);
        assertThat(m.roomFor(m.share("b"), 2 * MIB, woken::incrementAndGet)).isTrue();
    }
}
