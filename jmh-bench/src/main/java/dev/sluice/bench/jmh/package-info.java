/**
 * JMH microbenchmarks of hot paths. Each class sets forks, warm-ups and iterations explicitly; run them with {@code
 * java -jar jmh-bench/target/sluice-bench.jar jmh} (docs/benchmarks.md).
 */
package dev.sluice.bench.jmh;
