/** Profiles only the benchmarks need (registered through META-INF/services/dev.sluice.core.spi.Profile). */
package dev.sluice.bench.profile;
