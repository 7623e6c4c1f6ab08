/**
 * Sluice's rate limiting and I/O scheduling (engine-ratelimit): admission control in front of partitions
 * ({@code dev.sluice.ratelimit.admission}, CruiseDB §V) and the native priority I/O Env with its scheduling policies,
 * emulated cloud device and fault injection ({@code dev.sluice.ratelimit.env}, docs/architecture.md §3.3).
 *
 * <p>Depends on engine-core (its {@code spi}, {@code sensor} and {@code control} packages) and rocksdbjni; core finds the
 * implementations here through {@link java.util.ServiceLoader}.
 */
package dev.sluice.ratelimit;
