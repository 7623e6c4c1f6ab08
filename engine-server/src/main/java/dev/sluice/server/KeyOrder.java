package dev.sluice.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps one connection's pipelined requests in Redis order where it can be observed, while letting the rest run
 * concurrently on the node's async pool: a request that writes a key starts after the connection's earlier requests on
 * that key (reads and writes) and after its earlier SCANs; a read of a key starts after the earlier writes of that key;
 * a SCAN starts after every earlier write. Reads of the same key, and requests on different keys, run concurrently.
 * (Across connections, as in any store, there is no order between requests in flight at the same time.)
 *
 * <p>Not thread-safe: used on the connection's event loop only. Entries are released when the request's reply is
 * written, so the tables hold at most {@code server.max.pending.per.connection} requests.
 */
final class KeyOrder {
    enum Kind {
        NONE,
        READ,
        WRITE,
        SCAN
    }

    /** What a request touches: its kind and its keys (none for SCAN and NONE). */
    record Access(Kind kind, List<byte[]> keys) {
        static final Access NONE = new Access(Kind.NONE, List.of());
    }

    private static final class Entry {
        CompletableFuture<?> write;
        final List<CompletableFuture<?>> reads = new ArrayList<>(2);
    }

    private final Map<ByteBuffer, Entry> keys = new HashMap<>();
    private final Set<CompletableFuture<?>> writes = new HashSet<>();
    private final Set<CompletableFuture<?>> scans = new HashSet<>();

    /** What a new request must wait for, or null when it may start now. */
    CompletableFuture<Void> dependencies(Access a) {
        List<CompletableFuture<?>> deps = new ArrayList<>();
        switch (a.kind()) {
            case NONE -> {}
            case SCAN -> addUnfinished(deps, writes);
            case READ -> {
                for (byte[] k : a.keys()) {
                    Entry e = keys.get(ByteBuffer.wrap(k));
                    if (e != null && e.write != null && !e.write.isDone()) {
                        deps.add(e.write);
                    }
                }
            }
            case WRITE -> {
                addUnfinished(deps, scans);
                for (byte[] k : a.keys()) {
                    Entry e = keys.get(ByteBuffer.wrap(k));
                    if (e != null) {
                        if (e.write != null && !e.write.isDone()) {
                            deps.add(e.write);
                        }
                        addUnfinished(deps, e.reads);
                    }
                }
            }
        }
        return deps.isEmpty() ? null : CompletableFuture.allOf(deps.toArray(new CompletableFuture<?>[0]));
    }

    private static void addUnfinished(List<CompletableFuture<?>> deps, java.util.Collection<CompletableFuture<?>> fs) {
        for (CompletableFuture<?> f : fs) {
            if (!f.isDone()) {
                deps.add(f);
            }
        }
    }

    void register(Access a, CompletableFuture<?> f) {
        switch (a.kind()) {
            case NONE -> {}
            case SCAN -> scans.add(f);
            case READ -> {
                for (byte[] k : a.keys()) {
                    keys.computeIfAbsent(ByteBuffer.wrap(k), x -> new Entry())
                            .reads
                            .add(f);
                }
            }
            case WRITE -> {
                writes.add(f);
                for (byte[] k : a.keys()) {
                    keys.computeIfAbsent(ByteBuffer.wrap(k), x -> new Entry()).write = f;
                }
            }
        }
    }

    /** The request's reply was written: forget it. */
    void release(Access a, CompletableFuture<?> f) {
        switch (a.kind()) {
            case NONE -> {}
            case SCAN -> scans.remove(f);
            case READ, WRITE -> {
                writes.remove(f);
                for (byte[] k : a.keys()) {
                    ByteBuffer key = ByteBuffer.wrap(k);
                    Entry e = keys.get(key);
                    if (e != null) {
                        if (e.write == f) {
                            e.write = null;
                        }
                        e.reads.removeIf(r -> r == f);
                        if (e.write == null && e.reads.isEmpty()) {
                            keys.remove(key);
                        }
                    }
                }
            }
        }
    }

    /** Requests tracked now (tests). */
    int tracked() {
        return keys.size() + writes.size() + scans.size();
    }
}
