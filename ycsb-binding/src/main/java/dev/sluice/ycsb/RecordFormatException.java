package dev.sluice.ycsb;

/**
 * A stored value is not a valid record of {@link RecordCodec}'s format. The message names the byte offset and what is
 * wrong. The binding reports it to YCSB as {@code UNEXPECTED_STATE}.
 */
public final class RecordFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RecordFormatException(String message) {
        super("corrupt Sluice YCSB record: " + message);
    }
}
