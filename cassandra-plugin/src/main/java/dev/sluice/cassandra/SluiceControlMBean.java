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

    /** The last snapshot, one line per table. */
    String[] getLatestSnapshot();
}
