package dev.sluice.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionApiTest {
    @TempDir
    Path dir;

    SluiceNode node;
    Partition p;

    @BeforeEach
    void open() {
        node = Sluice.open(SluiceConfig.builder(dir).env("default").build());
        p = node.defaultPartition();
    }

    @AfterEach
    void close() {
        node.close();
    }

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void putGetDeleteRoundTrip() {
        assertThat(p.get(b("a"))).isNull();
        p.put(b("a"), b("1"));
        assertThat(p.get(b("a"))).isEqualTo(b("1"));
        p.put(b("a"), b("2"), WriteMode.SYNC);
        assertThat(p.get(b("a"))).isEqualTo(b("2"));
        p.delete(b("a"));
        assertThat(p.get(b("a"))).isNull();
        p.put(b("empty"), new byte[0]);
        assertThat(p.get(b("empty"))).isEmpty();
    }

    /**
     * API probe (2026-11-28): Batch.ops() handed out the batch's own arrays, so changing one changed what was written
     * ("m1" stored as "X1"); keys and values are copied on add, and ops() gives copies. An empty multiGet's list is
     * mutable like any other.
     */
    @Test
    void aBatchsElementsCannotBeChangedThroughOps() {
        Batch batch = new Batch().put(b("m1"), b("v")).delete(b("gone"));
        batch.ops().get(0).key()[0] = 'X';
        batch.ops().get(0).value()[0] = 'Y';
        assertThat(batch.ops().get(1).isDelete()).isTrue();
        p.write(batch);
        assertThat(p.get(b("m1"))).isEqualTo(b("v"));
        assertThat(p.get(b("X1"))).isNull();
        List<byte[]> none = p.multiGet(List.of());
        none.add(b("x"));
        assertThat(none).hasSize(1);
    }

    /** The empty key is a key like any other, as in RocksDB and Redis (refused until 2026-11-27), and survives a reopen. */
    @Test
    void theEmptyKeyIsAKey() {
        byte[] empty = new byte[0];
        p.put(empty, b("e"));
        p.put(b("a"), b("1"));
        assertThat(p.get(empty)).isEqualTo(b("e"));
        assertThat(p.multiGet(List.of(b("a"), empty))).containsExactly(b("1"), b("e"));
        assertThat(keys(KeyRange.all())).containsExactly("", "a"); // the smallest key in bytewise order
        assertThat(keys(KeyRange.greaterThan(empty))).containsExactly("a");
        assertThat(keys(KeyRange.prefix(empty))).containsExactly("", "a");
        node.close();
        node = Sluice.open(SluiceConfig.builder(dir).env("default").build());
        p = node.defaultPartition();
        assertThat(p.get(empty)).isEqualTo(b("e"));
        p.write(new Batch().delete(empty));
        assertThat(p.get(empty)).isNull();
        assertThat(keys(KeyRange.all())).containsExactly("a");
    }

    @Test
    void batchIsAppliedAtomicallyAndMultiGetKeepsOrder() {
        p.put(b("gone"), b("x"));
        p.write(new Batch().put(b("k1"), b("v1")).put(b("k2"), b("v2")).delete(b("gone")));
        List<byte[]> vs = p.multiGet(List.of(b("k2"), b("missing"), b("k1"), b("gone")));
        assertThat(vs).hasSize(4);
        assertThat(vs.get(0)).isEqualTo(b("v2"));
        assertThat(vs.get(1)).isNull();
        assertThat(vs.get(2)).isEqualTo(b("v1"));
        assertThat(vs.get(3)).isNull();
        p.write(new Batch()); // empty batch is a no-op
    }

    @Test
    void scanBoundsInclusiveAndExclusive() {
        for (String k : List.of("a", "b", "c", "d", "e")) {
            p.put(b(k), b("v" + k));
        }
        assertThat(keys(KeyRange.closedOpen(b("b"), b("d")))).containsExactly("b", "c");
        assertThat(keys(KeyRange.closed(b("b"), b("d")))).containsExactly("b", "c", "d");
        assertThat(keys(KeyRange.open(b("b"), b("d")))).containsExactly("c");
        assertThat(keys(KeyRange.atLeast(b("d")))).containsExactly("d", "e");
        assertThat(keys(KeyRange.greaterThan(b("d")))).containsExactly("e");
        assertThat(keys(KeyRange.lessThan(b("b")))).containsExactly("a");
        assertThat(keys(KeyRange.atMost(b("b")))).containsExactly("a", "b");
        assertThat(keys(KeyRange.all())).containsExactly("a", "b", "c", "d", "e");
        assertThat(p.scan(KeyRange.all(), 2))
                .extracting(kv -> new String(kv.key(), UTF_8))
                .containsExactly("a", "b");
        assertThat(p.scanKeys(KeyRange.open(b("a"), b("e")), 10))
                .extracting(k -> new String(k, UTF_8))
                .containsExactly("b", "c", "d");
        assertThat(p.scanKeys(KeyRange.all(), 2))
                .extracting(k -> new String(k, UTF_8))
                .containsExactly("a", "b");
        assertThat(p.scanKeys(KeyRange.all(), 0)).isEmpty();
        assertThatThrownBy(() -> p.scanKeys(KeyRange.all(), -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A keys-only scan returns keys in order and no value, but counts what it read like a scan (key and value bytes:
     * the values' blocks were read), so a tenant's quota cannot be bypassed by listing keys over large values.
     */
    @Test
    void scanKeysAsyncReturnsKeysInOrderAndCountsWhatItRead() throws Exception {
        byte[] big = new byte[200_000];
        for (int i = 0; i < 20; i++) {
            p.put(b(String.format("k%02d", i)), big);
        }
        RocksPartition rp = (RocksPartition) p;
        long before = rp.counters().bytesRead();
        List<byte[]> ks = p.scanKeysAsync(KeyRange.all(), 100).get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(ks)
                .extracting(k -> new String(k, UTF_8))
                .hasSize(20)
                .startsWith("k00")
                .endsWith("k19");
        long keysOnly = rp.counters().bytesRead() - before;
        assertThat(keysOnly).isEqualTo(20 * (3 + 200_000L));
        assertThat(p.scan(KeyRange.all(), 100)).hasSize(20);
        assertThat(rp.counters().bytesRead() - before - keysOnly).isEqualTo(keysOnly);
    }

    @Test
    void prefixScanUsesUnsignedOrder() {
        p.put(new byte[] {1, (byte) 0xFF}, b("x"));
        p.put(new byte[] {1, 0x00}, b("y"));
        p.put(new byte[] {2}, b("z"));
        List<KeyValue> r = p.scan(KeyRange.prefix(new byte[] {1}), 10);
        assertThat(r).hasSize(2);
        assertThat(r.get(0).key()).isEqualTo(new byte[] {1, 0});
        assertThat(r.get(1).key()).isEqualTo(new byte[] {1, (byte) 0xFF});
    }

    private List<String> keys(KeyRange r) {
        List<String> out = new ArrayList<>();
        try (ScanIterator it = p.scan(r)) {
            it.forEachRemaining(kv -> out.add(new String(kv.key(), UTF_8)));
        }
        return out;
    }

    @Test
    void asyncVariantsComplete() throws Exception {
        CompletableFuture<Void> put = p.putAsync(b("x"), b("1"), WriteMode.DEFAULT);
        put.get();
        assertThat(p.getAsync(b("x")).get()).isEqualTo(b("1"));
        p.writeAsync(new Batch().put(b("y"), b("2")), WriteMode.ASYNC).get();
        assertThat(p.multiGetAsync(List.of(b("x"), b("y"))).get()).containsExactly(b("1"), b("2"));
        p.deleteAsync(b("x"), WriteMode.SYNC).get();
        assertThat(p.getAsync(b("x")).get()).isNull();
        assertThat(p.scanAsync(KeyRange.all(), 10).get()).hasSize(1);
    }

    @Test
    void badInputIsRejectedWithNamedArgumentAndNothingIsWritten() {
        assertThatThrownBy(() -> p.put(null, b("v")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> p.put(b("k"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value");
        byte[] bigKey = new byte[8193];
        assertThatThrownBy(() -> p.put(bigKey, b("v"))).hasMessageContaining("limits.max.key.bytes = 8192");
        byte[] bigValue = new byte[16 * 1024 * 1024 + 1];
        assertThatThrownBy(() -> p.put(b("k"), bigValue)).hasMessageContaining("limits.max.value.bytes");
        assertThatThrownBy(() -> p.write(new Batch().put(b("ok"), b("v")).put(bigKey, b("v"))))
                .hasMessageContaining("limits.max.key.bytes");
        assertThat(p.get(b("ok")))
                .as("the valid element of a rejected batch was not written")
                .isNull();
        assertThatThrownBy(() -> p.getAsync(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.scan(null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> node.partition("nope"))
                .hasMessageContaining("no partition 'nope'")
                .hasMessageContaining("default");
    }

    @Test
    void closedNodeRefusesCallsAndCloseIsIdempotent() {
        p.put(b("k"), b("v"));
        node.close();
        node.close();
        assertThatThrownBy(() -> p.get(b("k")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> p.putAsync(b("k"), b("v"), WriteMode.DEFAULT))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> node.partition("default")).isInstanceOf(IllegalStateException.class);
        node = Sluice.open(SluiceConfig.builder(dir).env("default").build());
        assertThat(node.defaultPartition().get(b("k"))).isEqualTo(b("v"));
    }

    @Test
    void aScanTheNodeClosedSaysSoInsteadOfLookingExhausted() {
        p.put(b("a"), b("1"));
        p.put(b("b"), b("2"));
        ScanIterator it = p.scan(KeyRange.all());
        assertThat(it.next().key()).isEqualTo(b("a"));
        node.close();
        assertThatThrownBy(it::hasNext)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 'default'")
                .hasMessageContaining("closed");
        assertThatThrownBy(it::next)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 'default'")
                .hasMessageContaining("closed");
        it.close(); // closing again is harmless
    }

    @Test
    void usingAScanAfterClosingItThrowsAndAnExhaustedOneKeepsTheIteratorContract() {
        p.put(b("a"), b("1"));
        ScanIterator closed = p.scan(KeyRange.all());
        closed.close();
        assertThatThrownBy(closed::hasNext)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("scan of partition 'default' is closed");
        assertThatThrownBy(closed::next)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("scan of partition 'default' is closed");
        try (ScanIterator it = p.scan(KeyRange.all())) {
            assertThat(it.next().key()).isEqualTo(b("a"));
            assertThat(it.hasNext()).isFalse();
            assertThat(it.hasNext()).isFalse();
            assertThatThrownBy(it::next)
                    .isInstanceOf(java.util.NoSuchElementException.class)
                    .hasMessageContaining("no more entries");
        }
    }

    @Test
    void aHealthyPartitionSaysSoAndResumeIsANoOp() {
        p.put(b("a"), b("1"));
        assertThat(p.health()).isEqualTo(dev.sluice.core.sensor.PartitionHealth.OK);
        assertThat(node.sample().partition("default").health().ok()).isTrue();
        try (ScanIterator it = p.scan(KeyRange.all())) {
            assertThat(p.resume()).isEqualTo(dev.sluice.core.sensor.PartitionHealth.OK);
            assertThat(it.next().key()).as("a no-op resume leaves scans open").isEqualTo(b("a"));
        }
        node.controlPlane().tickOnce();
        assertThat(node.meterRegistry()
                        .get("sluice.health")
                        .tag("partition", "default")
                        .gauge()
                        .value())
                .isZero();
        node.close();
        assertThatThrownBy(p::health).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(p::resume).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void snapshotReflectsWritesAndFlushes() {
        node.controlPlane().tickOnce(); // baseline for the deltas
        java.util.Random rnd = new java.util.Random(1);
        for (int i = 0; i < 2000; i++) {
            byte[] v = new byte[1000];
            rnd.nextBytes(v); // incompressible, so flushed bytes ≈ user bytes
            p.put(b("key" + i), v);
        }
        assertThat(node.sample().partition("default").opsDelta().puts()).isEqualTo(2000);
        node.controlPlane().tickOnce();
        LsmSnapshot before = node.latestSnapshot().partition("default");
        assertThat(before.opsDelta().puts())
                .as("an on-demand sample in between did not move the tick baseline")
                .isEqualTo(2000);
        assertThat(before.memtableBytes()).isGreaterThan(1_000_000);
        assertThat(before.memtableWatermark()).isGreaterThan(0).isLessThan(1);
        assertThat(before.ops().puts()).isEqualTo(2000);
        assertThat(before.writeBufferSize()).isEqualTo(64L << 20);
        p.flush();
        node.controlPlane().tickOnce();
        LsmSnapshot after = node.latestSnapshot().partition("default");
        assertThat(after.l0Files()).isEqualTo(1);
        assertThat(after.levels().get(0).files()).hasSize(1);
        assertThat(after.flushBytes()).isGreaterThan(1_000_000);
        assertThat(after.walBytes()).isGreaterThan(2_000_000);
        // WAL (≈ user bytes) + one flush of incompressible data (≈ user bytes), no compaction yet: about 2.
        assertThat(after.writeAmplification()).isBetween(1.8, 2.6);
        assertThat(after.intervalNanos()).isPositive();
        assertThat(after.opsDelta().puts()).isZero();
    }
}
