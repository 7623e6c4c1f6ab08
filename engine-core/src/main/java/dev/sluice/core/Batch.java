package dev.sluice.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An atomic group of puts and deletes for one partition: either all are applied or none. Not thread-safe; build it in
 * one thread, then pass it to {@link Partition#write(Batch)}. Keys and values are copied on add.
 */
public final class Batch {
    /** One element: a put when {@code value != null}, else a delete. */
    public record Op(byte[] key, byte[] value) {
        public boolean isDelete() {
            return value == null;
        }
    }

    private final List<Op> ops = new ArrayList<>();
    private long bytes;

    public Batch put(byte[] key, byte[] value) {
        Limits.requireNonNull(key, "key");
        Limits.requireNonNull(value, "value");
        ops.add(new Op(key.clone(), value.clone()));
        bytes += key.length + value.length;
        return this;
    }

    public Batch delete(byte[] key) {
        Limits.requireNonNull(key, "key");
        ops.add(new Op(key.clone(), null));
        bytes += key.length;
        return this;
    }

    public int size() {
        return ops.size();
    }

    public boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Key + value bytes of every element. */
    public long bytes() {
        return bytes;
    }

    public List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }
}
