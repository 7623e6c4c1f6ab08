/**
 * The native priority I/O Env (docs/architecture.md §3.3): {@link dev.sluice.ratelimit.env.PriorityEnv} (a RocksDB Env whose
 * FileSystem classifies, accounts, schedules, emulates a cloud volume for, and can fail every file I/O), its
 * ServiceLoader entry {@link dev.sluice.ratelimit.env.PriorityEnvProvider} (name "priority"), start-up options
 * ({@link dev.sluice.ratelimit.env.PriorityEnvConfig}), the emulated device
 * ({@link dev.sluice.ratelimit.env.ContractDevice}, equations in DEVICE.md) and fault injection
 * ({@link dev.sluice.ratelimit.env.FaultInjector}). Scheduling policies and classification are described in DEVICE.md too.
 *
 * <p>The C++ side lives in {@code src/main/native/} and is built by Maven into {@code native/linux-x86_64/} of the jar;
 * {@code NativeLoader} loads it after {@code RocksDB.loadLibrary()}. The one class outside this package is
 * {@code org.rocksdb.SluiceEnvHandle}, the tiny Java handle of the native Env.
 *
 * <p>May depend on: engine-core's {@code spi} and {@code sensor} packages, rocksdbjni. Nothing in engine-core depends on
 * this package; the node finds it through {@link java.util.ServiceLoader}.
 */
package dev.sluice.ratelimit.env;
