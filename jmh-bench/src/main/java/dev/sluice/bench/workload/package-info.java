/**
 * Load generation: operation mixes, key distributions, load shapes, and the drivers: open loop (intended-time, vLSM §5)
 * with synchronous workers ({@link dev.sluice.bench.workload.OpenLoopDriver}) or asynchronous dispatch ({@link
 * dev.sluice.bench.workload.AsyncOpenLoopDriver}), and closed loop. Drivers know nothing of Sluice; {@link
 * dev.sluice.bench.workload.StoreWorkload} binds them to a {@link dev.sluice.core.Partition}.
 */
package dev.sluice.bench.workload;
