package dev.sluice.core;

import java.util.Iterator;

/**
 * Iterates a key range in ascending bytewise order over a consistent snapshot of the partition taken when the scan
 * started. Holds native resources: always close it (try-with-resources). Not thread-safe.
 *
 * <p>Once exhausted, {@link #hasNext()} is false and {@link #next()} throws {@link java.util.NoSuchElementException}.
 * Once closed — by its caller, by the node's close or by {@link Partition#resume()} — both throw {@link
 * IllegalStateException} saying so, so a closed scan is never mistaken for the end of the range.
 */
public interface ScanIterator extends Iterator<KeyValue>, AutoCloseable {
    @Override
    void close();
}
