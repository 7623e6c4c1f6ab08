package dev.sluice.cassandra;

/**
 * The JMX view of the plugin's control plane, registered as {@code dev.sluice.cassandra:type=SluiceControl} in the
 * Cassandra JVM (jconsole, nodetool-compatible JMX clients).
 */
public interface SluiceControlMBean {
    /** Controllers in priority order. */
    String[] getControllers();

    /** Tables ({@code keyspace.table}) that use SluiceCompactionStrategy now. */
    String[] getTables();

    /** Tables whose background compactions a controller withholds now. */
    String[] getHeldTables();

    /** Background compaction tasks withheld so far, all tables. */
    long getWithheldTasks();

    /** The native-transport limit admission set (requests/s); -1 when rate limiting is off. */
    double getAdmissionRate();

    long getTicks();

    /** Control events recorded since start (including those no longer kept). */
    long getEventCount();

    /** The most recent control events, oldest first, one line each. */
    String[] getRecentEvents();

    /**
     * The last snapshot: first the node's I/O rates of the tick ({@code io: flush=...B/s compaction=...B/s}, or {@code
     * io=unknown} before the second tick), then one line per table.
     */
    String[] getLatestSnapshot();

    /**
     * The sensors' reading of any table, whatever its strategy (benchmarks read a UCS table with the same code):
     * {@code [live sstables, pending compaction bytes, running compactions, memtable pool bytes used, memtable pool
     * budget, memtables being flushed]}.
     *
     * @throws IllegalArgumentException when the table does not exist
     */
    long[] tableGauges(String keyspace, String table);
}
