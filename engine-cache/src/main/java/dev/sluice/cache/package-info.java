/**
 * Calcspar's fluctuation-aware cache (Calcspar §4.3; design in {@code CALCSPAR-CACHE.md} next to this file): one
 * space of packed key ranges in front of every partition's point reads, a hotness table of 256 KiB key-space blocks,
 * proactive prefetch of hot blocks with spare paid IOPS (PREFETCH class) under light load and passive admission on
 * misses under heavy load, switched by a pure controller ({@code controls = calcspar-cache}). Writes go through to the
 * cached ranges before they are acknowledged, so a cached read is never stale.
 *
 * <p>May depend on engine-core, Micrometer and SLF4J only.
 */
package dev.sluice.cache;
