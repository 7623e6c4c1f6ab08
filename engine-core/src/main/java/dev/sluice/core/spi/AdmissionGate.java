package dev.sluice.core.spi;

import dev.sluice.core.OverloadedException;
import dev.sluice.core.RequestKind;
import java.util.concurrent.CompletableFuture;

/**
 * Admission in front of a partition's requests (CruiseDB §V's request waiting queue + token bucket lives in
 * engine-ratelimit). Core calls {@link #acquire} before each synchronous request and {@link #acquireAsync} before each
 * asynchronous one.
 *
 * <p>Thread-safety: all methods may be called from any thread concurrently.
 */
public interface AdmissionGate extends AutoCloseable {
    /**
     * Waits until the request may proceed. Throws {@link OverloadedException} (or {@link
     * dev.sluice.core.QuotaExceededException}) at once when the wait would exceed the gate's bounds. A caller interrupted
     * while it waits is not admitted: the gate gives back its token, sets the interrupt flag again and throws a {@link
     * dev.sluice.core.SluiceException} whose cause is the {@link InterruptedException} (engine-ratelimit's gate throws
     * {@code AdmissionInterruptedException}).
     *
     * @param bytes key + value bytes of the request (quotas count them)
     */
    void acquire(RequestKind kind, long bytes);

    /** Completes when the request may proceed, or exceptionally with OverloadedException; never blocks the caller. */
    CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes);

    /**
     * Like {@link #acquire(RequestKind, long)} for a request that carries {@code operations} key operations (a batch of
     * n writes, a multiGet of n keys): admission counts operations, so such a request is charged as n requests and
     * batching cannot bypass the rate. The default charges n single requests one after another; engine-ratelimit's
     * gate reserves the n tokens at once.
     */
    default void acquire(RequestKind kind, long bytes, int operations) {
        for (int i = 0; i < Math.max(1, operations); i++) {
            acquire(kind, i == 0 ? bytes : 0);
        }
    }

    /** {@link #acquireAsync(RequestKind, long)} charged as {@code operations} requests (see the synchronous form). */
    default CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes, int operations) {
        CompletableFuture<Void> f = acquireAsync(kind, bytes);
        for (int i = 1; i < operations; i++) {
            f = f.thenCompose(v -> acquireAsync(kind, 0));
        }
        return f;
    }

    /** Sets the admission rate in requests/s; {@code Double.POSITIVE_INFINITY} lets everything through. */
    void setRate(double requestsPerSecond);

    double rate();

    /** Requests waiting now. */
    int queued();

    /** Requests refused since the gate was created. */
    long rejected();

    /**
     * Fails every waiting request with OverloadedException("closed") and refuses new ones. Core closes a partition's
     * gate after marking the partition closed, and reports those waiters to its callers as IllegalStateException ("is
     * closed"), as every other request on a closed partition.
     */
    @Override
    void close();

    /** A gate that admits everything at once. */
    AdmissionGate OPEN = new AdmissionGate() {
        private final CompletableFuture<Void> done = CompletableFuture.completedFuture(null);

        public void acquire(RequestKind kind, long bytes) {}

        public CompletableFuture<Void> acquireAsync(RequestKind kind, long bytes) {
            return done;
        }

        public void setRate(double r) {
            throw new UnsupportedOperationException(
                    "this partition has no admission gate; enable an admission controller (e.g. controls=admission)");
        }

        public double rate() {
            return Double.POSITIVE_INFINITY;
        }

        public int queued() {
            return 0;
        }

        public long rejected() {
            return 0;
        }

        public void close() {}
    };
}
