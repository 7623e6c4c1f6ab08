/**
 * Per-partition (tenant) RCU/WCU quotas, FlexEngine §2.1 / §4.2: a read unit (RCU) is a read of up to 4 KiB, a write
 * unit (WCU) a write of up to 1 KiB; each partition may carry a rate of each per second ({@link PartitionQuota}), and
 * {@link TenantQuota} charges every request by its size against two reservation buckets ({@link QuotaBucket}),
 * throttling or refusing with {@link dev.sluice.core.QuotaExceededException}. See {@code docs/quotas.md}.
 *
 * <p>Depends on engine-core's config descriptors and the JDK only; time comes through an injected nano clock.
 */
package dev.sluice.core.quota;
