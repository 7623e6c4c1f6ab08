package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.base.Ticker;
import dev.sluice.core.quota.PartitionQuota;
import dev.sluice.core.quota.QuotaStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RCU/WCU quotas on real RocksDB: charging by size, throttle vs refuse, live change. Time is a fake ticker the test
 * steps, so every assertion is on counts and computed waits, not on how fast this machine is.
 */
class PartitionQuotaTest {
    @TempDir
    Path dir;

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return nanos.get();
        }
    };
    SluiceNode node;

    SluiceNode open(SluiceConfig.Builder b) {
        node = Sluice.open(b.env("default").build(), new SimpleMeterRegistry(), ticker);
        return node;
    }

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8); // 8 bytes
    }

    static byte[] value(int bytes) {
        return new byte[bytes];
    }

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void writesAreChargedOneWcuPerKibOfKeyPlusValueAndABatchByItsTotal() {
        Partition p = open(SluiceConfig.builder(dir).partitions("t1").quota("t1", PartitionQuota.of(0, 1e6)))
                .partition("t1");
        p.put(key(1), value(10 * 1024 - 8)); // exactly 10 KiB
        assertThat(p.quotaStats().writeUnits()).isEqualTo(10);
        p.put(key(2), value(10 * 1024 - 7)); // one byte more: 11
        assertThat(p.quotaStats().writeUnits()).isEqualTo(21);
        p.delete(key(1)); // 8 bytes: 1
        assertThat(p.quotaStats().writeUnits()).isEqualTo(22);
        // three 1000-byte puts and a delete: 3032 bytes by the total → 3 WCUs
        p.write(new Batch()
                .put(key(3), value(1000))
                .put(key(4), value(1000))
                .put(key(5), value(1000))
                .delete(key(2)));
        assertThat(p.quotaStats().writeUnits()).isEqualTo(25);
        p.write(new Batch().put(key(6), value(600)).put(key(7), value(600))); // 1216 bytes → 2 (each alone: 1 + 1)
        assertThat(p.quotaStats().writeUnits()).isEqualTo(27);
        assertThat(p.quotaStats().readUnits()).isZero();
    }

    @Test
    void readsAreChargedByBytesReturnedGetsMultiGetsAndScans() {
        Partition p = open(SluiceConfig.builder(dir).partitions("t1").quota("t1", PartitionQuota.of(1e6, 0)))
                .partition("t1");
        for (int i = 0; i < 5; i++) {
            p.put(key(i), value(10_000)); // 10008 bytes with the key: 3 RCUs each
        }
        p.get(key(0));
        assertThat(p.quotaStats().readUnits()).isEqualTo(3);
        p.get(key(99)); // absent: the minimum, 1
        assertThat(p.quotaStats().readUnits()).isEqualTo(4);
        p.multiGet(List.of(key(1), key(2), key(3))); // 30024 bytes by the total → 8 (3 gets alone would be 9)
        assertThat(p.quotaStats().readUnits()).isEqualTo(12);
        assertThat(p.scan(KeyRange.all(), 4)).hasSize(4); // 40032 bytes returned → 10
        assertThat(p.quotaStats().readUnits()).isEqualTo(22);
        assertThat(p.scan(KeyRange.all(), 0)).isEmpty(); // a scan that returned nothing: 1
        assertThat(p.quotaStats().readUnits()).isEqualTo(23);
        assertThat(p.quotaStats().writeUnits()).isEqualTo(50); // metered without a write quota too: 5 × 10 WCUs
        // keys only: no value copied out, but the values were read: charged like the scan, 5 × 10008 bytes → 13
        assertThat(p.scanKeys(KeyRange.all(), 10)).hasSize(5);
        assertThat(p.quotaStats().readUnits()).isEqualTo(36);
    }

    @Test
    void refusePolicyFailsAtOnceNamingTheQuotaAndWritesNothing() {
        Partition p = open(SluiceConfig.builder(dir)
                        .partitions("t1")
                        .quota("t1", PartitionQuota.of(0, 10).refusing()))
                .partition("t1");
        // 20 WCUs, twice the 1-s burst: no wait is allowed, so it can never pass, and the refusal says so
        assertThatThrownBy(() -> p.put(key(9), value(20 * 1024 - 8)))
                .isInstanceOf(QuotaExceededException.class)
                .hasMessageContaining("no request above 10 WCUs, the quota's burst, can pass");
        p.put(key(1), value(10 * 1024 - 8)); // 10 WCUs when idle: the whole burst, allowed
        assertThatThrownBy(() -> p.put(key(2), value(1))) // one more unit is 100 ms beyond the burst
                .isInstanceOf(QuotaExceededException.class)
                .hasMessageContaining("partition 't1' is over its quota of 10 WCU/s")
                .hasMessageContaining("partition.t1.over.quota = refuse");
        assertThat(p.get(key(2))).isNull(); // nothing written
        // a flow-control signal an over-quota tenant raises thousands of times a second: no stack trace to fill
        try {
            p.put(key(2), value(1));
        } catch (QuotaExceededException e) {
            assertThat(e.getStackTrace()).isEmpty();
        }
        CompletableFuture<Void> f = p.putAsync(key(3), value(1), WriteMode.DEFAULT);
        assertThat(f).isCompletedExceptionally(); // refused on the caller's thread, without blocking it
        assertThatThrownBy(f::get).hasCauseInstanceOf(QuotaExceededException.class);
        QuotaStats s = p.quotaStats();
        assertThat(s.refused()).isEqualTo(4);
        var registry = node.meterRegistry();
        assertThat(registry.get("sluice.quota.refused")
                        .tag("partition", "t1")
                        .functionCounter()
                        .count())
                .isEqualTo(4);
        assertThat(registry.get("sluice.quota.units")
                        .tags("partition", "t1", "unit", "wcu")
                        .functionCounter()
                        .count())
                .isEqualTo(10);
        assertThat(s.throttled()).isZero();
        assertThat(s.writeUnits()).isEqualTo(10);
        advance(Duration.ofSeconds(1)); // paid off down to the burst: the next one goes
        p.put(key(2), value(1));
        assertThat(p.get(key(2))).isNotNull();
    }

    @Test
    void throttlePolicyWaitsForTheReservationAndRefusesPastMaxWait() throws Exception {
        Partition p = open(SluiceConfig.builder(dir)
                        .partitions("t1", "t2")
                        .quota("t1", PartitionQuota.of(0, 10).throttling(Duration.ofSeconds(2))))
                .partition("t1");
        long before = System.nanoTime();
        // 20 WCUs, twice the burst: tat = now + 2 s, and it waits for the 10 units beyond the burst, 1 s (pays before
        // it runs; the fake clock does not move, the wait is real)
        p.put(key(1), value(20 * 1024 - 8));
        assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(p.quotaStats().throttled()).isEqualTo(1);
        assertThat(p.quotaStats().throttleWaitNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        // async: the future completes after its wait, on a timer, not on the caller's thread
        CompletableFuture<Void> f = p.putAsync(key(3), value(100), WriteMode.DEFAULT); // tat 2.1 s: waits 1.1 s
        assertThat(f).isNotDone();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(f::isDone);
        f.get();
        assertThat(p.get(key(3))).isNotNull();
        assertThat(p.quotaStats().throttled()).isEqualTo(2);
        p.put(key(4), value(9 * 1024 - 8)); // 9 units: tat 3.0 s, waits 2.0 s = quota.max.wait.ms
        // one unit more would wait 2.1 s > quota.max.wait.ms = 2000
        assertThatThrownBy(() -> p.put(key(5), value(1)))
                .isInstanceOf(QuotaExceededException.class)
                .hasMessageContaining("it would wait 2100 ms > partition.t1.quota.max.wait.ms = 2000");
        assertThat(p.quotaStats().refused()).isEqualTo(1);
        // the other tenant is untouched
        Partition t2 = node.partition("t2");
        t2.put(key(1), value(100_000));
        assertThat(t2.quotaStats()).isEqualTo(new QuotaStats(0, 98, 0, 0, 0));
    }

    /** Closing the node ends quota waits at once (until 2026-11-26 they lasted their whole reservation). */
    @Test
    void closingTheNodeFailsRequestsWaitingForTheirQuotaAtOnce() throws Exception {
        Partition p = open(SluiceConfig.builder(dir)
                        .partitions("t1")
                        .quota("t1", PartitionQuota.of(0, 1).throttling(Duration.ofSeconds(60))))
                .partition("t1");
        java.util.concurrent.atomic.AtomicReference<Throwable> syncOutcome =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                p.put(key(2), value(30 * 1024 - 8)); // 30 WCUs at 1 WCU/s, 1 s of burst: waits 29 s
                syncOutcome.set(new AssertionError("admitted"));
            } catch (Throwable t) {
                syncOutcome.set(t);
            }
        });
        writer.start();
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> p.quotaStats().throttled() == 1);
        CompletableFuture<Void> async = p.putAsync(key(3), value(30 * 1024 - 8), WriteMode.DEFAULT); // waits 59 s
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> p.quotaStats().throttled() == 2);
        assertThat(async).isNotDone();
        long t0 = System.nanoTime();
        node.close();
        writer.join(5_000);
        assertThat(writer.isAlive()).as("the synchronous writer still waits").isFalse();
        assertThat(syncOutcome.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(async::isDone);
        assertThatThrownBy(async::join).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(System.nanoTime() - t0)
                .as("both ended within seconds of the close, not 29-59 s")
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
        node = null;
    }

    @Test
    void quotaChangesOnALiveNode() {
        Partition p = open(SluiceConfig.builder(dir)
                        .partitions("t1")
                        .quota("t1", PartitionQuota.of(0, 10).refusing()))
                .partition("t1");
        p.put(key(1), value(10 * 1024 - 8)); // the whole 1-s burst
        assertThatThrownBy(() -> p.put(key(2), value(1))).isInstanceOf(QuotaExceededException.class);
        p.setQuota(PartitionQuota.of(0, 20).refusing()); // owed 10 units re-spaced at 20/s: 0.5 s, within the burst
        assertThat(p.quota().wcu()).isEqualTo(20);
        p.put(key(2), value(1)); // owes 0.55 s
        assertThatThrownBy(() -> p.put(key(3), value(10 * 1024 - 8))) // 10 more: 1.05 s, 50 ms beyond the burst
                .isInstanceOf(QuotaExceededException.class);
        p.setQuota(PartitionQuota.UNLIMITED);
        for (int i = 0; i < 100; i++) {
            p.put(key(10 + i), value(10_000));
        }
        assertThat(p.quotaStats().refused()).isEqualTo(2);
        assertThatThrownBy(() -> p.setQuota(null)).hasMessageContaining("quota must not be null");
    }

    @Test
    void quotasFromPropertiesAndClearErrors() throws Exception {
        Properties props = new Properties();
        props.setProperty("data.dir", dir.toString());
        props.setProperty("partitions", "t1,t2");
        props.setProperty("partition.t1.rcu", "400");
        props.setProperty("partition.t1.wcu", "100");
        props.setProperty("partition.t1.over.quota", "refuse");
        props.setProperty("partition.t2.quota.max.wait.ms", "250");
        SluiceConfig c = SluiceConfig.fromProperties(props, dir);
        assertThat(c.quota("t1")).isEqualTo(PartitionQuota.of(400, 100).refusing());
        assertThat(c.quota("t2").maxWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.toBuilder().build().quota("t1").rcu()).isEqualTo(400);

        props.setProperty("partition.t1.wcu", "-5");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(props, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("partition.t1.wcu = '-5' is out of range");
        props.setProperty("partition.t1.wcu", "100");
        props.setProperty("partition.t1.wcus", "100");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(props, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown option [partition.t1.wcus]");
        props.remove("partition.t1.wcus");
        props.setProperty("partition.t9.rcu", "1");
        assertThatThrownBy(() -> SluiceConfig.fromProperties(props, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("quota given for partition 't9'");
        assertThat(SluiceConfig.builder(dir)
                        .partitions("a")
                        .partitionOption("a", "wcu", "7")
                        .partitionOption("a", "over.quota", "REFUSE")
                        .build()
                        .quota("a"))
                .isEqualTo(PartitionQuota.of(0, 7).refusing());
        Files.writeString(dir.resolve("unused"), ""); // the temp dir is writable: the errors above were the values
    }
}
