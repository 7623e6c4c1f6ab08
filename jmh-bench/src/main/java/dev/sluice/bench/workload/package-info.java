/**
 * Load generation: operation mixes, key distributions, load shapes, and the open-loop (intended-time, vLSM §5) and
 * closed-loop drivers. Drivers know nothing of Sluice; {@link dev.sluice.bench.workload.StoreWorkload} binds them to a
 * {@link dev.sluice.core.Partition}.
 */
package dev.sluice.bench.workload;
