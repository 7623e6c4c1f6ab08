/**
 * YCSB binding for Sluice: {@link dev.sluice.ycsb.SluiceClient} ({@code site.ycsb.DB}), the record encoding {@link
 * dev.sluice.ycsb.RecordCodec}, the binding properties {@link dev.sluice.ycsb.BindingProperties}, and the launcher
 * {@link dev.sluice.ycsb.YcsbMain} behind {@code ./sluice ycsb}. Workload files A–F live in {@code /workloads/}.
 *
 * <p>Depends on engine-core's public API and YCSB core 0.17.0 only; controllers, profiles and the priority Env are
 * found by the engine through ServiceLoader when their jars are on the classpath.
 */
package dev.sluice.ycsb;
