package dev.sluice.server;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The server's SCAN cursors: per partition, a table from cursor number to the key the next call continues after, kept
 * within {@code server.scan.cursor.bytes} by evicting the least recently used. A cursor is valid on any connection
 * whose partition it was issued for (pooled clients send the next SCAN on whichever connection is free, as Redis
 * allows) and may be resumed more than once (Redis' cursors are positions, not one-shot tokens).
 *
 * <p>Until 2026-11-29 each connection kept its own 1,024 cursors without a byte bound: a probe ran a 512-MiB server out
 * of memory with about 60 connections pipelining {@code SCAN 0 COUNT 1 MATCH nomatch} over an 8-KiB key, and the
 * server stayed up answering nothing. Now a partition's cursors hold at most the budget whatever the connections do,
 * and one tenant's SCANs cannot evict another tenant's cursors (tenants map to partitions).
 *
 * <p>Numbers are random in [1, 2^53): not guessable in sequence, and exact in clients that parse a cursor as a double
 * (JavaScript). Thread-safe.
 */
final class ScanCursors {
    /** What one cursor costs besides its key: the map entry, the boxed number and the array header. */
    static final int ENTRY_OVERHEAD = 96;

    private static final long MAX_ID = 1L << 53;

    private final long budgetBytes;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();

    ScanCursors(long budgetBytes) {
        this.budgetBytes = budgetBytes;
    }

    /** A new cursor of {@code partition} that continues after {@code lastKey}. */
    long issue(String partition, byte[] lastKey) {
        return tables.computeIfAbsent(partition, p -> new Table()).issue(lastKey);
    }

    /** The key a cursor continues after, or null when it is unknown for this partition (never issued, or evicted). */
    byte[] find(String partition, long cursor) {
        Table t = tables.get(partition);
        return t == null ? null : t.find(cursor);
    }

    /** Bytes the cursors of {@code partition} hold (keys and per-entry overhead). */
    long bytes(String partition) {
        Table t = tables.get(partition);
        return t == null ? 0 : t.bytes();
    }

    private final class Table {
        private final LinkedHashMap<Long, byte[]> byId = new LinkedHashMap<>(16, 0.75f, true);
        private long bytes;

        synchronized long issue(byte[] lastKey) {
            long id;
            do {
                id = ThreadLocalRandom.current().nextLong(1, MAX_ID);
            } while (byId.containsKey(id));
            byId.put(id, lastKey);
            bytes += cost(lastKey);
            Iterator<Map.Entry<Long, byte[]>> it = byId.entrySet().iterator();
            while (bytes > budgetBytes && byId.size() > 1 && it.hasNext()) {
                Map.Entry<Long, byte[]> eldest = it.next();
                if (eldest.getKey() == id) {
                    continue; // the one just issued stays: its reply is about to name it
                }
                bytes -= cost(eldest.getValue());
                it.remove();
            }
            return id;
        }

        synchronized byte[] find(long cursor) {
            return byId.get(cursor);
        }

        synchronized long bytes() {
            return bytes;
        }

        private static long cost(byte[] key) {
            return key.length + (long) ENTRY_OVERHEAD;
        }
    }
}
