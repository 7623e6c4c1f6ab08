package dev.sluice.cache;

/**
 * Cumulative counters of a {@link CalcsparCache} (all partitions).
 *
 * @param hitsByMode lookups answered from the cache, by the mode active at the time (index = {@link CacheMode#ordinal()})
 * @param missesByMode lookups that went to the engine, by mode
 * @param prefetchIos device I/O units the prefetcher read (scanned bytes / I/O unit, at least one per block)
 * @param prefetchBytes key + value bytes the prefetcher read
 * @param prefetchedBlocks blocks (and re-warm ranges) the prefetcher scanned
 * @param rewarmSkipped re-warm ranges not scanned because they span more than an eighth of the cache's capacity
 * @param staleFillsRefused fills refused: a one-key fill whose key (or stripe) was written after its read started, or
 *     a fill that raced an {@code invalidateAll} or a write that could not be read back
 * @param modeSwitches mode changes applied
 * @param weightBytes bytes held now (every range's arrays, overheads and overlay)
 * @param hotnessTableBytes memory of the hotness tables now
 * @param evictions ranges evicted
 * @param ranges ranges held now (prefetched blocks and keys admitted on misses)
 */
public record CacheStats(
        long[] hitsByMode,
        long[] missesByMode,
        long prefetchIos,
        long prefetchBytes,
        long prefetchedBlocks,
        long rewarmSkipped,
        long staleFillsRefused,
        long modeSwitches,
        long weightBytes,
        long hotnessTableBytes,
        long evictions,
        long ranges) {

    public long hits() {
        return hitsByMode[0] + hitsByMode[1];
    }

    public long misses() {
        return missesByMode[0] + missesByMode[1];
    }

    /** hits / (hits + misses), or 0 without lookups. */
    public double hitRatio() {
        long n = hits() + misses();
        return n == 0 ? 0 : (double) hits() / n;
    }

    /** The hit ratio while {@code mode} was active, or 0 without lookups in it. */
    public double hitRatio(CacheMode mode) {
        long h = hitsByMode[mode.ordinal()], n = h + missesByMode[mode.ordinal()];
        return n == 0 ? 0 : (double) h / n;
    }
}
