/**
 * Tenants (FlexEngine §2.1, §4.2, §5.1): the {@code flex-tenant} profile and the partition-level I/O budgets of the
 * two-level admission — a foreground reservation from a partition's RCU/WCU quota (Eq. 2) and a background budget from
 * its measured ingest (Eq. 3). The RCU/WCU request quotas themselves live in engine-core ({@code
 * dev.sluice.core.quota}), in the request path. Depends on engine-core's spi, sensor and quota packages.
 */
package dev.sluice.ratelimit.quota;
