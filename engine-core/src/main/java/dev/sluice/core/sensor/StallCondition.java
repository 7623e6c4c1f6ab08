package dev.sluice.core.sensor;

/** RocksDB's write-stall state as last reported (NORMAL, DELAYED = slowdown, STOPPED = writes blocked). */
public enum StallCondition {
    NORMAL,
    DELAYED,
    STOPPED
}
