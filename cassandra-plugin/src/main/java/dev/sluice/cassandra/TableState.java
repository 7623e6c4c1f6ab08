package dev.sluice.cassandra;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.cassandra.db.ColumnFamilyStore;

/**
 * One table that uses {@link SluiceCompactionStrategy}, as the node-wide control plane sees it: a partition named
 * {@code keyspace.table}. Cassandra creates two or more strategy instances per table (repaired, unrepaired, pending
 * repair); they all share this state. The flags are written by the control thread (through {@link
 * CassandraActuators}) and read by Cassandra's compaction threads in {@code getNextBackgroundTask}.
 */
final class TableState {
    final String name;
    final ColumnFamilyStore cfs;
    final Set<SluiceCompactionStrategy> strategies = ConcurrentHashMap.newKeySet();
    /** Automatic (background) compactions withheld by a controller (SetAutoCompactions false). */
    volatile boolean held;
    /** At most this many compactions of this table at once (SetCompactionConcurrency); negative = no limit. */
    volatile int maxConcurrent = -1;
    /** Background tasks withheld so far (held, or the concurrency limit reached). */
    final AtomicLong withheld = new AtomicLong();

    TableState(ColumnFamilyStore cfs) {
        this.cfs = cfs;
        this.name = nameOf(cfs);
    }

    static String nameOf(ColumnFamilyStore cfs) {
        return cfs.getKeyspaceName() + "." + cfs.getTableName();
    }
}
