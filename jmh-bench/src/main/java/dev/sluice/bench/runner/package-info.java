/**
 * Running scenarios: one stack per child JVM ({@link dev.sluice.bench.runner.StackMain}), the 1-s window timeline
 * ({@link dev.sluice.bench.runner.StackRunner}), the results.json model ({@link dev.sluice.bench.runner.Results}) and
 * the whole invocation ({@link dev.sluice.bench.runner.BenchRun}).
 */
package dev.sluice.bench.runner;
