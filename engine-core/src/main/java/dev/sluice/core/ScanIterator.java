package dev.sluice.core;

import java.util.Iterator;

/**
 * Iterates a key range in ascending bytewise order over a consistent snapshot of the partition taken when the scan
 * started. Holds native resources: always close it (try-with-resources). Not thread-safe.
 */
public interface ScanIterator extends Iterator<KeyValue>, AutoCloseable {
    @Override
    void close();
}
