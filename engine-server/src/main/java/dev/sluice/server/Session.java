package dev.sluice.server;

import dev.sluice.core.Partition;

/**
 * One connection's state: the tenant it authenticated as, its partition and its name (CLIENT SETNAME). Read and written
 * on the connection's event loop only. SCAN cursors are the server's ({@link ScanCursors}), not the connection's.
 */
final class Session {
    final long id;
    String tenant;
    Partition partition;
    String clientName;

    Session(long id, Partition partition) {
        this.id = id;
        this.partition = partition;
    }
}
