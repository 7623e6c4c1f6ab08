package dev.sluice.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A packed range: look-ups, absent keys, the overlay, folding it in, and the memory it costs. */
class CachedRangeTest {
    static byte[] key(int i) {
        return ByteBuffer.allocate(16).putLong(7).putLong(i).array();
    }

    static byte[] value(int i, int version) {
        return ("v" + i + "." + version).getBytes(UTF_8);
    }

    /** Keys 0, 2, 4, ..., 2(n−1) of cluster 7, range [key(0), key(2n)). */
    static CachedRange evenKeys(int n) {
        CachedRange.Builder b = new CachedRange.Builder();
        for (int i = 0; i < 2 * n; i += 2) {
            b.add(key(i), value(i, 1));
        }
        return b.build(key(0), key(2 * n), new CachedRange.Overlay(), true, 0, 0);
    }

    @Test
    void storedKeysAnswerTheirValueAndOtherKeysOfTheRangeAreAbsent() {
        CachedRange r = evenKeys(100);
        assertThat(r.entries()).isEqualTo(100);
        for (int i = 0; i < 200; i++) {
            assertThat(r.covers(key(i))).isTrue();
            assertThat(r.get(key(i))).isEqualTo(i % 2 == 0 ? value(i, 1) : null);
        }
        assertThat(r.covers(key(200))).as("the end is exclusive").isFalse();
        assertThat(r.covers(ByteBuffer.allocate(16).putLong(6).putLong(0).array()))
                .isFalse();
        byte[] v = r.get(key(4));
        v[0] = 'X';
        assertThat(r.get(key(4))).as("a look-up returns a copy").isEqualTo(value(4, 1));
    }

    @Test
    void theOverlayWinsAndFoldingKeepsEveryAnswer() {
        CachedRange r = evenKeys(100);
        r.overlay.put(key(4), value(4, 2)); // update
        r.overlay.put(key(6), CachedRange.Overlay.ABSENT); // delete
        r.overlay.put(key(7), value(7, 2)); // insert between two stored keys
        r.overlay.put(key(199), value(199, 2)); // insert after the last stored key
        assertThat(r.get(key(4))).isEqualTo(value(4, 2));
        assertThat(r.get(key(6))).isNull();
        assertThat(r.get(key(7))).isEqualTo(value(7, 2));

        List<Map.Entry<CachedRange.Overlay.Key, byte[]>> folded = new ArrayList<>();
        CachedRange m = r.merged(folded);
        assertThat(folded).hasSize(4);
        assertThat(m.overlay).as("the merged range shares the overlay").isSameAs(r.overlay);
        for (Map.Entry<CachedRange.Overlay.Key, byte[]> e : folded) {
            m.overlay.removeIfSame(e.getKey(), e.getValue());
        }
        assertThat(m.overlay.size()).isZero();
        assertThat(m.overlay.bytes()).isZero();
        assertThat(m.entries()).isEqualTo(100 - 1 + 2);
        for (int i = 0; i < 200; i++) {
            byte[] want = i == 4 || i == 7 || i == 199 ? value(i, 2) : i % 2 == 0 && i != 6 ? value(i, 1) : null;
            assertThat(m.get(key(i))).as("key %d", i).isEqualTo(want);
        }
    }

    @Test
    void aWriteDuringTheFoldStaysInTheOverlay() {
        CachedRange r = evenKeys(10);
        r.overlay.put(key(2), value(2, 2));
        List<Map.Entry<CachedRange.Overlay.Key, byte[]>> folded = new ArrayList<>();
        CachedRange m = r.merged(folded);
        r.overlay.put(key(2), value(2, 3)); // lands after the fold read the overlay
        for (Map.Entry<CachedRange.Overlay.Key, byte[]> e : folded) {
            m.overlay.removeIfSame(e.getKey(), e.getValue());
        }
        assertThat(m.get(key(2))).isEqualTo(value(2, 3));
    }

    @Test
    void aBlockOfMixgraphEntriesCostsAboutItsData() {
        // 256 KiB of 16-byte keys and 256-byte values, as calcspar-mixgraph's blocks
        CachedRange.Builder b = new CachedRange.Builder();
        int n = (256 << 10) / 272;
        for (int i = 0; i < n; i++) {
            b.add(key(i), new byte[256]);
        }
        CachedRange r = b.build(key(0), key(n), new CachedRange.Overlay(), true, 0, 0);
        double perDataByte = (double) r.bytes() / b.bytes();
        assertThat(perDataByte).isLessThan(1.04);
    }

    @Test
    void recencyComesFromTheCachesClockAndSurvivesFoldingTheOverlay() {
        CachedRange r = CachedRange.single(key(5), value(5, 1), 7_000_000);
        assertThat(r.lastAccessNanos()).isEqualTo(7_000_000);
        r.touch(7_500_000);
        assertThat(r.lastAccessNanos())
                .as("within 1 ms of the last update: not rewritten")
                .isEqualTo(7_000_000);
        r.touch(9_000_000);
        assertThat(r.lastAccessNanos()).isEqualTo(9_000_000);
        r.overlay.put(key(5), value(5, 2));
        CachedRange m = r.merged(new ArrayList<>());
        assertThat(m.lastAccessNanos()).as("a fold is not an access").isEqualTo(9_000_000);
        assertThat(m.get(key(5))).isEqualTo(value(5, 2));
    }

    @Test
    void aOneKeyRangeCoversOnlyItsKey() {
        CachedRange r = CachedRange.single(key(5), value(5, 1), 0);
        assertThat(r.entries()).isEqualTo(1);
        assertThat(r.get(key(5))).isEqualTo(value(5, 1));
        assertThat(r.covers(key(5))).isTrue();
        assertThat(r.covers(key(6))).isFalse();
        assertThat(r.covers(key(4))).isFalse();
        CachedRange absent = CachedRange.single(key(5), null, 0);
        assertThat(absent.entries()).isZero();
        assertThat(absent.covers(key(5))).isTrue();
        assertThat(absent.get(key(5))).as("known to be absent").isNull();
        absent.overlay.put(key(5), value(5, 2));
        assertThat(absent.get(key(5))).isEqualTo(value(5, 2));
    }

    @Test
    void keysMustArriveInOrder() {
        CachedRange.Builder b = new CachedRange.Builder();
        b.add(key(2), value(2, 1));
        assertThatThrownBy(() -> b.add(key(1), value(1, 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.add(key(2), value(2, 1))).isInstanceOf(IllegalArgumentException.class);
    }
}
