package dev.sluice.ratelimit.admission;

import dev.sluice.core.SluiceException;

/**
 * A synchronous request was interrupted while it waited in a partition's admission gate. The request was not admitted
 * (nothing was written or read), the token it had reserved was given back, and the thread's interrupt flag is set again
 * before this is thrown, so the caller's own interruption handling still sees it.
 *
 * <p>It is a {@link SluiceException} rather than an {@link dev.sluice.core.OverloadedException}: the store is not
 * overloaded, the caller asked to stop, and a retry-with-backoff handler for overload should not swallow it. The
 * {@link InterruptedException} is the cause.
 */
public final class AdmissionInterruptedException extends SluiceException {
    public AdmissionInterruptedException(String message, InterruptedException cause) {
        super(message, cause);
    }
}
