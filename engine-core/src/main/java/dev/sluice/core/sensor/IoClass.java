package dev.sluice.core.sensor;

/**
 * The I/O classes the priority Env tells apart (docs/architecture.md §3.3). Order is the default urgency, most urgent first.
 *
 * <p>COMPACTION_L0 covers the inputs and outputs of L0→L1 and intra-L0 compactions; COMPACTION_HIGH covers compactions
 * whose output is L1 or L2; COMPACTION_DEEP everything below. META is manifest, CURRENT, OPTIONS and info logs.
 */
public enum IoClass {
    WAL,
    USER_GET,
    USER_SCAN,
    FLUSH,
    COMPACTION_L0,
    COMPACTION_HIGH,
    COMPACTION_DEEP,
    PREFETCH,
    META;

    /** Whether the class serves a user request directly (foreground I/O in FlexEngine's terms). */
    public boolean isForeground() {
        return this == WAL || this == USER_GET || this == USER_SCAN;
    }

    /**
     * Whether the class is background I/O: flush, compaction of any level and prefetch (the native Env's {@code
     * IsBackground}; the I/O it cuts into chunks).
     */
    public boolean isBackground() {
        return this == FLUSH || isCompaction() || this == PREFETCH;
    }

    /** Whether the class is compaction I/O of any level. */
    public boolean isCompaction() {
        return this == COMPACTION_L0 || this == COMPACTION_HIGH || this == COMPACTION_DEEP;
    }
}
