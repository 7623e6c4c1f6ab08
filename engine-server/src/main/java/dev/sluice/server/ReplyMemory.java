package dev.sluice.server;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server-wide bound on reply bytes held in memory: replies computed but not yet written, plus the worst case of the
 * requests running, over every RESP2 connection ({@code server.max.reply.bytes}). Each connection also has its own bound
 * ({@code server.max.reply.bytes.per.connection}); see {@link RespHandler}. Thread-safe.
 *
 * <p>Tenants: the bytes are counted per partition (a tenant's AUTH selects its partition), and half the cap is split
 * evenly among the partitions connections use (the tenants' partitions; without tenants the default one) as a floor
 * that only that partition's connections use; the other half is shared, first come. A partition may always add bytes
 * within its floor; above it, only while the shared half has room. So every such partition keeps {@code cap / (2 ×
 * partitions)} whatever the others do (all of the cap with one partition), and the total stays within the cap: the floors add up to half of it and the bytes above them to at most the other half.
 * Until 2026-11-28 one count served all: a throttled tenant's requests keep their worst case reserved while they wait
 * for quota (up to {@code quota.max.wait.ms}), and about 22 of its connections pipelining GETs held a 1-GB cap, so that
 * every other tenant's connections ran one request at a time (a probe of the server's tenant isolation).
 */
final class ReplyMemory {
    /** One partition's count; {@link #floor} of it never takes from the shared half. */
    static final class Share {
        final String partition;
        final long floor;
        private final AtomicLong held = new AtomicLong();

        private Share(String partition, long floor) {
            this.partition = partition;
            this.floor = floor;
        }

        long held() {
            return held.get();
        }
    }

    private final long cap;
    private final long sharedCap;
    /** Over all shares: the bytes each holds above its floor. */
    private final AtomicLong sharedUsed = new AtomicLong();

    private final LongAdder held = new LongAdder();
    private final Map<String, Share> shares = new ConcurrentHashMap<>();
    /** For a connection without a partition of the node (not expected; counted in the shared half only). */
    private final Share none = new Share(null, 0);
    /** Connections whose next request waits for room here: each is woken (once) when bytes are released. */
    private final Set<Runnable> blocked = ConcurrentHashMap.newKeySet();

    /** A cap of {@code cap} bytes, half of it split into floors for {@code partitions}. */
    ReplyMemory(long cap, Collection<String> partitions) {
        this.cap = cap;
        long floor = partitions.isEmpty() ? 0 : cap / (2L * partitions.size());
        for (String p : partitions) {
            shares.put(p, new Share(p, floor));
        }
        this.sharedCap = cap - floor * partitions.size();
    }

    /** {@code server.max.reply.bytes}, with 0 meaning a quarter of the JVM's maximum heap. */
    static long capFor(long configured) {
        return configured > 0 ? configured : Runtime.getRuntime().maxMemory() / 4;
    }

    long cap() {
        return cap;
    }

    /** The bytes held over all partitions. */
    long held() {
        return held.sum();
    }

    /** The count of {@code partition} (a partition the node did not have at start counts in the shared half only). */
    Share share(String partition) {
        Share s = partition == null ? null : shares.get(partition);
        return s == null ? none : s;
    }

    void add(Share s, long bytes) {
        long before = s.held.getAndAdd(bytes);
        long above = excess(s, before + bytes) - excess(s, before);
        if (above != 0) {
            sharedUsed.addAndGet(above);
        }
        held.add(bytes);
        if (bytes < 0 && !blocked.isEmpty()) {
            for (java.util.Iterator<Runnable> it = blocked.iterator(); it.hasNext(); ) {
                Runnable wake = it.next();
                it.remove();
                wake.run();
            }
        }
    }

    private static long excess(Share s, long held) {
        return Math.max(0, held - s.floor);
    }

    /**
     * Whether {@code more} bytes fit in {@code s} now; when not, {@code wake} runs once bytes are next released (a
     * connection waits for room the others free, not only for its own replies).
     */
    boolean roomFor(Share s, long more, Runnable wake) {
        if (roomFor(s, more)) {
            return true;
        }
        blocked.add(wake);
        if (roomFor(s, more)) { // released meanwhile: its wake-up may have run before this one was registered
            blocked.remove(wake);
            return true;
        }
        return false;
    }

    /** Whether {@code more} bytes may be added to {@code s} on top of what is held now. */
    boolean roomFor(Share s, long more) {
        long h = s.held.get();
        long above = excess(s, h + more) - excess(s, h);
        return above <= 0 || sharedUsed.get() + above <= sharedCap;
    }
}
