package dev.sluice.core.sensor;

/**
 * One table file as the sensors saw it. {@code fileNumber} is the number in {@code 000123.sst}; keys are copies.
 *
 * @param name file name relative to the partition directory, as RocksDB's {@code compactFiles} expects it
 */
public record SstFile(
        String name,
        long fileNumber,
        int level,
        long sizeBytes,
        long smallestSeqno,
        long largestSeqno,
        byte[] smallestKey,
        byte[] largestKey,
        boolean beingCompacted) {}
