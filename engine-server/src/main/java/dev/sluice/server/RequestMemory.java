package dev.sluice.server;

import java.util.Collection;
import java.util.List;

/**
 * The server-wide budget for requests being received ({@code server.max.request.bytes.total}): the bytes every
 * connection holds of a request that has not arrived whole (its decoded arguments and what it sent that is not decoded
 * yet). {@code server.max.request.bytes} bounds one connection; this bounds them together. Thread-safe.
 *
 * <p>Tenants: the bytes are counted per partition with the floors of {@link ReplyMemory} (half the budget split evenly
 * among the served partitions, the other half shared, first come), so a tenant may always hold {@code budget / (2 ×
 * partitions)} of unfinished requests whatever the others hold. Until 2026-11-29 one count served all: a tenant's 99
 * connections each holding most of a 16-MB SET that never finished filled the budget, and every other tenant's requests
 * above {@link #FLOOR} were refused while the tenant that filled it stayed connected (a tenant-isolation probe).
 */
final class RequestMemory {
    /** A connection holding no more than this is never refused for the budget (a PING, a small SET). */
    static final long FLOOR = 64 * 1024;

    static final RequestMemory UNBOUNDED = new RequestMemory(Long.MAX_VALUE, List.of());

    private final ReplyMemory shares;

    /** A budget of {@code budget} bytes, half of it split into floors for {@code partitions}. */
    RequestMemory(long budget, Collection<String> partitions) {
        this.shares = new ReplyMemory(budget, partitions);
    }

    /** The count of {@code partition} (null or a partition not served at start: the shared half only). */
    ReplyMemory.Share share(String partition) {
        return shares.share(partition);
    }

    /**
     * A connection counted in {@code s} goes from holding {@code held} bytes to {@code now}: true when done; false, with
     * nothing changed, when it would grow past {@link #FLOOR} and beyond what {@code s}'s floor and the shared half have
     * room for.
     */
    boolean hold(ReplyMemory.Share s, long held, long now) {
        long more = now - held;
        if (more > 0 && now > FLOOR && !shares.roomFor(s, more)) {
            return false;
        }
        if (more != 0) {
            shares.add(s, more);
        }
        return true;
    }

    /** Releases {@code bytes} a connection counted in {@code s} held. */
    void release(ReplyMemory.Share s, long bytes) {
        if (bytes != 0) {
            shares.add(s, -bytes);
        }
    }

    long used() {
        return shares.held();
    }

    long budget() {
        return shares.cap();
    }
}
