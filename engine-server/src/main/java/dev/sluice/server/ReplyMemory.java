package dev.sluice.server;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server-wide bound on reply bytes held in memory: replies computed but not yet written, over every RESP2
 * connection ({@code server.max.reply.bytes}). Each connection also has its own bound ({@code
 * server.max.reply.bytes.per.connection}); see {@link RespHandler}. Thread-safe.
 */
final class ReplyMemory {
    private final long cap;
    private final LongAdder held = new LongAdder(); // two event loops add to it for every request: no shared CAS
    /** Connections whose next request waits for room here: each is woken (once) when bytes are released. */
    private final Set<Runnable> blocked = ConcurrentHashMap.newKeySet();

    ReplyMemory(long cap) {
        this.cap = cap;
    }

    /** {@code server.max.reply.bytes}, with 0 meaning a quarter of the JVM's maximum heap. */
    static long capFor(long configured) {
        return configured > 0 ? configured : Runtime.getRuntime().maxMemory() / 4;
    }

    long cap() {
        return cap;
    }

    long held() {
        return held.sum();
    }

    void add(long bytes) {
        held.add(bytes);
        if (bytes < 0 && !blocked.isEmpty()) {
            for (java.util.Iterator<Runnable> it = blocked.iterator(); it.hasNext(); ) {
                Runnable wake = it.next();
                it.remove();
                wake.run();
            }
        }
    }

    /**
     * Whether {@code more} bytes fit now; when not, {@code wake} runs once bytes are next released (a connection waits
     * for room the others free, not only for its own replies).
     */
    boolean roomFor(long more, Runnable wake) {
        if (roomFor(more)) {
            return true;
        }
        blocked.add(wake);
        if (roomFor(more)) { // released meanwhile: its wake-up may have run before this one was registered
            blocked.remove(wake);
            return true;
        }
        return false;
    }

    /** Whether {@code more} bytes may be added on top of what is held now. */
    boolean roomFor(long more) {
        return held.sum() + more <= cap;
    }
}
