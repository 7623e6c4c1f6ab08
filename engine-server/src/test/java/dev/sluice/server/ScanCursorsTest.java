package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScanCursorsTest {
    private static byte[] key(int bytes, int fill) {
        byte[] k = new byte[bytes];
        java.util.Arrays.fill(k, (byte) fill);
        return k;
    }

    @Test
    void aPartitionsCursorsStayWithinTheBudgetEvictingTheLeastRecentlyUsed() {
        long budget = 64 << 10;
        ScanCursors c = new ScanCursors(budget);
        long first = c.issue("alpha", key(8192, 1));
        long second = c.issue("alpha", key(8192, 2));
        assertThat(c.find("alpha", first)).isEqualTo(key(8192, 1)); // used: now the most recent
        for (int i = 0; i < 10_000; i++) {
            c.issue("alpha", key(8192, 3));
            assertThat(c.bytes("alpha")).isLessThanOrEqualTo(budget);
        }
        assertThat(c.find("alpha", second)).isNull();
        assertThat(c.find("alpha", first)).isNull();
        long last = c.issue("alpha", key(8192, 4));
        assertThat(c.find("alpha", last)).isEqualTo(key(8192, 4));
    }

    @Test
    void aCursorIsResumableAndValidForItsPartitionOnly() {
        ScanCursors c = new ScanCursors(1 << 20);
        long a = c.issue("alpha", key(3, 7));
        assertThat(c.find("alpha", a)).isEqualTo(key(3, 7));
        assertThat(c.find("alpha", a)).as("resumed twice").isEqualTo(key(3, 7));
        assertThat(c.find("beta", a)).isNull();
        assertThat(c.find("alpha", a + 1)).isNull();
        assertThat(a).isBetween(1L, (1L << 53) - 1);
    }

    @Test
    void oneTenantsScansDoNotEvictAnothersCursors() {
        ScanCursors c = new ScanCursors(64 << 10);
        long bobs = c.issue("beta", key(16, 9));
        for (int i = 0; i < 1_000; i++) {
            c.issue("alpha", key(8192, 1));
        }
        assertThat(c.find("beta", bobs)).isEqualTo(key(16, 9));
    }

    @Test
    void aKeyLargerThanTheBudgetStillGetsItsCursor() {
        ScanCursors c = new ScanCursors(64 << 10);
        long big = c.issue("alpha", key(100_000, 5));
        assertThat(c.find("alpha", big)).hasSize(100_000);
        long next = c.issue("alpha", key(10, 5));
        assertThat(c.find("alpha", big)).isNull();
        assertThat(c.find("alpha", next)).hasSize(10);
    }
}
