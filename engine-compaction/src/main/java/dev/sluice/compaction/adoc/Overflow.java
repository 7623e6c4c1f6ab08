package dev.sluice.compaction.adoc;

import dev.sluice.core.sensor.LsmSnapshot;
import java.util.EnumSet;
import java.util.Set;

/**
 * ADOC's three data overflows (ADOC §4.1), in the order ADOC handles them when several occur in one tuning window
 * (§5: "L0O, RDO, MMO order"). {@link #detect} reads them off one {@link LsmSnapshot}; see {@code ADOC.md} for the
 * exact tests and how they approximate the paper.
 */
public enum Overflow {
    /** Level-0 overflow: L0 files at or above {@code earlyWarning × level0_slowdown_writes_trigger}. */
    L0O,
    /** Redundancy overflow: pending compaction bytes at or above {@code earlyWarning × soft_pending_compaction_bytes_limit}. */
    RDO,
    /**
     * Memory overflow: a memtable filled before the immutable one ahead of it was flushed — either two or more immutable
     * memtables wait for flush (with the stock {@code max_write_buffer_number = 2} that is the write stop, when the new
     * active memtable is still empty), or one waits while the active memtable is (nearly) full, at least {@code
     * activeFraction × write_buffer_size}.
     */
    MMO;

    /**
     * The overflows one snapshot shows. A disabled limit (slowdown trigger ≤ 0, soft pending limit 0) never overflows.
     *
     * @param earlyWarning fraction in (0, 1] of the L0 slowdown trigger and of the soft pending limit at which L0O and
     *     RDO count (1 = RocksDB's own thresholds, as in the paper)
     * @param activeFraction fraction in (0, 1] of write_buffer_size at which the active memtable counts as full
     */
    public static Set<Overflow> detect(LsmSnapshot s, double earlyWarning, double activeFraction) {
        EnumSet<Overflow> out = EnumSet.noneOf(Overflow.class);
        if (s.l0SlowdownTrigger() > 0 && s.l0Files() >= l0Threshold(s, earlyWarning)) {
            out.add(L0O);
        }
        if (s.softPendingLimit() > 0 && s.pendingCompactionBytes() >= pendingThreshold(s, earlyWarning)) {
            out.add(RDO);
        }
        if (s.immutableMemtables() >= 2 || activeFullBehindImmutable(s, activeFraction)) {
            out.add(MMO);
        }
        return out;
    }

    /** One immutable memtable waits for flush while the active one is at least {@code activeFraction} full. */
    static boolean activeFullBehindImmutable(LsmSnapshot s, double activeFraction) {
        return s.immutableMemtables() >= 1
                && s.writeBufferSize() > 0
                && s.activeMemtableBytes() >= activeFraction * s.writeBufferSize();
    }

    /** L0 file count at which L0O counts: ceil(earlyWarning × slowdown trigger), at least 1. */
    public static int l0Threshold(LsmSnapshot s, double earlyWarning) {
        return Math.max(1, (int) Math.ceil(earlyWarning * s.l0SlowdownTrigger() - 1e-9));
    }

    /** Pending compaction bytes at which RDO counts: earlyWarning × soft limit (rounded up), at least 1. */
    public static long pendingThreshold(LsmSnapshot s, double earlyWarning) {
        return Math.max(1, (long) Math.ceil(earlyWarning * s.softPendingLimit()));
    }
}
