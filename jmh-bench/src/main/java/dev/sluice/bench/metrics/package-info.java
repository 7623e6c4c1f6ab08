/** Metric definitions: tail throughput (CruiseDB Eq. 1), latency summaries, process RSS. Pure functions. */
package dev.sluice.bench.metrics;
