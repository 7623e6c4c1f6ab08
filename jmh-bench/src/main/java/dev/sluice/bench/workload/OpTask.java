package dev.sluice.bench.workload;

import java.util.SplittableRandom;

/** One kind of request source: choose an operation, then run it against the store. */
public interface OpTask {
    OpKind pick(SplittableRandom rnd);

    /** Runs the operation synchronously. Throws whatever the store throws. */
    void execute(OpKind kind, SplittableRandom rnd);

    /** Whether an exception means "refused by admission" (counted as rejected, not failed). */
    default boolean isRejection(RuntimeException e) {
        return false;
    }
}
