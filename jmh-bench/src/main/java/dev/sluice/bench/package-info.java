/**
 * The {@code sluice} command line ({@link dev.sluice.bench.SluiceCli}): {@code bench} (the SLA scenario runner, see
 * docs/benchmarks.md) and {@code jmh}. Depends on engine-core's public API and SPI only, plus engine-ratelimit on the
 * classpath for the priority Env.
 */
package dev.sluice.bench;
