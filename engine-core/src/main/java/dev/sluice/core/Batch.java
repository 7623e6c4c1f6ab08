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

    /**
     * Copies of the elements, in order: changing their arrays does not change the batch (until 2026-11-28 they were the
     * batch's own arrays, so {@code ops().get(0).key()[0] = 'X'} changed what {@code write} then wrote; API probe).
     */
    public List<Op> ops() {
        List<Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(new Op(
                    op.key().clone(), op.value() == null ? null : op.value().clone()));
        }
        return Collections.unmodifiableList(out);
    }

    /** The elements themselves, for the engine's own read-only use (no copy on the write path). */
    List<Op> opsView() {
        return Collections.unmodifiableList(ops);
    }
}
