package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.quota.PartitionQuota;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Preload batches fit the partition's write quota: a write pays before it runs, so a batch larger than the quota's
 * burst plus its wait could never pass, and the preload retried it for ever (a probe, 2026-11-29: a stack with a
 * 100-WCU/s quota and 1000-byte values sat at 0 keys).
 */
class PreloadBatchTest {
    @Test
    void withoutAWriteQuotaTheBatchIsTheUsual256() {
        assertThat(StackRunner.batchRecords(PartitionQuota.UNLIMITED, 1016)).isEqualTo(256);
        assertThat(StackRunner.batchRecords(PartitionQuota.of(100, 0), 1016)).isEqualTo(256);
    }

    @Test
    void aBatchIsAtMostHalfOfWhatTheQuotaCanEverAdmit() {
        // 100 WCU/s, 1 s of burst + 1 s of wait: 200 units can pass; 1016-byte records are 1 unit each
        assertThat(StackRunner.batchRecords(PartitionQuota.of(0, 100), 1016)).isEqualTo(100);
        // refusing: only the burst, 100 units
        assertThat(StackRunner.batchRecords(PartitionQuota.of(0, 100).refusing(), 1016))
                .isEqualTo(50);
        // 8-KiB records are 8 units: 200 / 2 / 8 = 12
        assertThat(StackRunner.batchRecords(PartitionQuota.of(0, 100), 8192)).isEqualTo(12);
        // a large quota keeps the usual batch
        assertThat(StackRunner.batchRecords(PartitionQuota.of(0, 750), 1016)).isEqualTo(256);
    }

    @Test
    void aRecordNoWriteCanAdmitEndsThePreloadWithAnError() {
        PartitionQuota q = PartitionQuota.of(0, 1).withBurst(Duration.ofSeconds(1));
        assertThatThrownBy(() -> StackRunner.batchRecords(q, 4096))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a record of 4096 bytes is 4 WCUs")
                .hasMessageContaining("(2)");
    }
}
