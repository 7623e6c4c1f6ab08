package dev.sluice.bench.workload;

/** Where drivers report each finished request. Thread-safe implementations only: every worker calls it. */
public interface OpSink {
    /** A completed request; {@code latencyNanos} from the intended start (open loop) or the actual start (closed). */
    void completed(OpKind kind, long latencyNanos);

    /** The store refused the request (admission: OverloadedException or QuotaExceededException). */
    void rejected(OpKind kind);

    /** The request failed with any other exception. */
    void failed(OpKind kind, RuntimeException e);
}
