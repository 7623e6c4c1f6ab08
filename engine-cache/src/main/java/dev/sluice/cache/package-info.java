/**
 * Calcspar's fluctuation-aware cache (Calcspar §4.3; docs/architecture.md §3.5): key-range blocks, a small hotness table,
 * proactive prefetch with spare IOPS tokens under light load and passive 4 KB LRU admission under heavy load, one
 * Caffeine-backed store that writes keep fresh. Not built yet (a later issue).
 *
 * <p>May depend on engine-core and Caffeine only.
 */
package dev.sluice.cache;
