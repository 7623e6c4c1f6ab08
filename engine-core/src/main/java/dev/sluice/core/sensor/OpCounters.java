package dev.sluice.core.sensor;

/**
 * Cumulative user operations and bytes of a partition since it opened. Bytes are key + value bytes as the user passed
 * or received them. {@code rejected} counts requests refused by admission (overload or quota).
 */
public record OpCounters(
        long gets,
        long puts,
        long deletes,
        long scans,
        long scannedEntries,
        long bytesWritten,
        long bytesRead,
        long rejected) {
    public static final OpCounters ZERO = new OpCounters(0, 0, 0, 0, 0, 0, 0, 0);

    /** Reads are gets plus scans (a scan counts once, whatever its length). */
    public long reads() {
        return gets + scans;
    }

    /** Writes are puts plus deletes (each batch element counts once). */
    public long writes() {
        return puts + deletes;
    }

    public long total() {
        return reads() + writes();
    }

    public OpCounters plus(OpCounters o) {
        return new OpCounters(
                gets + o.gets,
                puts + o.puts,
                deletes + o.deletes,
                scans + o.scans,
                scannedEntries + o.scannedEntries,
                bytesWritten + o.bytesWritten,
                bytesRead + o.bytesRead,
                rejected + o.rejected);
    }

    public OpCounters minus(OpCounters o) {
        return new OpCounters(
                gets - o.gets,
                puts - o.puts,
                deletes - o.deletes,
                scans - o.scans,
                scannedEntries - o.scannedEntries,
                bytesWritten - o.bytesWritten,
                bytesRead - o.bytesRead,
                rejected - o.rejected);
    }
}
