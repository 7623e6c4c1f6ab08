package org.rocksdb;

import java.util.function.LongConsumer;

/**
 * The Java handle of Sluice's native priority Env (engine-ratelimit, {@code dev.sluice.ratelimit.env.PriorityEnv}).
 *
 * <p>It lives in package {@code org.rocksdb} only because {@code Env(long)} is package-private in rocksdbjni 9.10; it
 * must stay this small. It wraps the {@code rocksdb::Env*} that {@code NewCompositeEnv(...).release()} returned and frees
 * it exactly once, through {@code disposer}, when closed — nothing else may free that pointer. Works in classpath mode
 * (a split package is not allowed on the module path).
 *
 * <p>Close order: every DB and Options using this Env first, then this handle.
 */
public final class SluiceEnvHandle extends Env {
    private final LongConsumer disposer;

    /** For {@code PriorityEnv} only: {@code handle} is a {@code rocksdb::Env*} owned by the new object. */
    public SluiceEnvHandle(long handle, LongConsumer disposer) {
        super(handle);
        this.disposer = disposer;
    }

    @Override
    protected void disposeInternal(long handle) {
        disposer.accept(handle);
    }
}
