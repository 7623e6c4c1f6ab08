package dev.sluice.cache;

/** Which of Calcspar's two cache policies (§4.3) is active; one at a time over one cache space. */
public enum CacheMode {
    /** Light load: spare paid IOPS prefetch the hottest blocks and re-warm L0/L1 (hotspot-aware proactive prefetch). */
    PROACTIVE,
    /** Heavy load (the top queue used more than the threshold of the tokens): no prefetch, misses admitted only. */
    PASSIVE
}
