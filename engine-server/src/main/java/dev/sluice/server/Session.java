package dev.sluice.server;

import dev.sluice.core.Partition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One connection's state: the tenant it authenticated as and its partition, its name (CLIENT SETNAME) and its open SCAN
 * cursors. Fields other than the cursors are read and written on the connection's event loop only; the cursor table is
 * synchronized (SCAN replies complete on the node's async pool).
 */
final class Session {
    static final int MAX_CURSORS = 1024;

    final long id;
    String tenant;
    Partition partition;
    String clientName;

    private long nextCursor = 1;
    private final LinkedHashMap<Long, byte[]> cursors = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, byte[]> e) {
            return size() > MAX_CURSORS;
        }
    };

    Session(long id, Partition partition) {
        this.id = id;
        this.partition = partition;
    }

    /** A new cursor that continues after {@code lastKey}. */
    synchronized long newCursor(byte[] lastKey) {
        long c = nextCursor++;
        cursors.put(c, lastKey);
        return c;
    }

    /** The key a cursor continues after, or null when unknown (never issued, expired, or issued to another tenant). */
    synchronized byte[] cursor(long c) {
        return cursors.remove(c);
    }

    synchronized void clearCursors() {
        cursors.clear();
    }
}
