package dev.sluice.bench.workload;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/** A request source that can also submit its operations through the store's asynchronous API. */
public interface AsyncOpTask extends OpTask {
    /**
     * Submits the operation without waiting for it and returns its future, which completes when the store has run it,
     * or exceptionally with what the store failed it with (e.g. a rejection per {@link #isRejection}). Everything random
     * is drawn from {@code rnd} before this returns, so {@code rnd} is only ever used by the calling thread. May also
     * throw synchronously (e.g. a closed store).
     */
    CompletableFuture<?> executeAsync(OpKind kind, SplittableRandom rnd);
}
