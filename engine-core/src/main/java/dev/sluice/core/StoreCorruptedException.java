package dev.sluice.core;

/**
 * A data directory is not a Sluice store, is from an incompatible version, or RocksDB found it corrupted. Sluice never
 * writes to such a directory; the message names the path and what is wrong.
 */
public class StoreCorruptedException extends SluiceException {
    public StoreCorruptedException(String message) {
        super(message);
    }

    public StoreCorruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
