package dev.sluice.core.quota;

/**
 * Cumulative quota meters of one partition since it opened.
 *
 * @param readUnits RCUs charged to requests that were admitted (served)
 * @param writeUnits WCUs charged to requests that were admitted (served)
 * @param throttled requests that had to wait for their quota, then ran
 * @param refused requests refused with {@link dev.sluice.core.QuotaExceededException}
 * @param throttleWaitNanos total time requests waited for their quota
 */
public record QuotaStats(long readUnits, long writeUnits, long throttled, long refused, long throttleWaitNanos) {
    public static final QuotaStats EMPTY = new QuotaStats(0, 0, 0, 0, 0);
}
