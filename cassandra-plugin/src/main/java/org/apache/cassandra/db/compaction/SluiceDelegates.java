package org.apache.cassandra.db.compaction;

import java.util.Set;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * Reaches the one protected member of a delegate compaction strategy that {@code SluiceCompactionStrategy} must
 * forward ({@code getSSTables()}): a Java subclass in another package may not call it on another instance. Lives in
 * Cassandra's package for that reason only; it holds no state.
 */
public final class SluiceDelegates {
    private SluiceDelegates() {}

    public static Set<SSTableReader> sstables(AbstractCompactionStrategy delegate) {
        return delegate.getSSTables();
    }
}
