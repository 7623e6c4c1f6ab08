package dev.sluice.ycsb;

import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.StoreCorruptedException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.Status;

/**
 * The one Sluice engine of this JVM, shared by every {@link SluiceClient} (YCSB creates one client per thread).
 * Reference-counted: the first {@link #acquire} opens the node, the last {@link #release} closes it. A second acquire
 * with a different configuration is refused (two engines on one directory cannot coexist, and two directories in one
 * YCSB run is not a use case).
 *
 * <p>Besides the node it holds what must be shared across client threads: the partition routing, the lock stripes
 * that make update's read-modify-write atomic, and the error counters reported when the node closes.
 *
 * <p>Routing: a stored key goes to partition {@code floorMod(fnv1a64(key), N)} of the configured partition list. The
 * hash must never change: data written by {@code load} must be found by {@code run}. To catch a changed partition list
 * (e.g. {@code sluice.partitions} differs between load and run) the first partition holds a metadata record under the
 * key {@code 0x00 "sluice-ycsb"}; no YCSB record can have that key because stored keys start with the (non-empty, NUL
 * free) table name.
 *
 * <p>Thread-safety: {@link #acquire}/{@link #release} synchronize on a static lock; everything else is safe to call
 * from any thread.
 */
final class SharedNode {
    private static final Logger log = LoggerFactory.getLogger(SharedNode.class);

    static final byte[] META_KEY = "\0sluice-ycsb".getBytes(StandardCharsets.US_ASCII);
    static final int META_FORMAT = 1;

    /** Lock stripes for read-modify-write; a power of two. */
    static final int STRIPES = 1024;

    private static final int LOGGED_ERRORS = 10;

    private static final Object LOCK = new Object();
    private static SharedNode current; // guarded by LOCK
    private int refs; // guarded by LOCK

    private final SluiceConfig config;
    private final SluiceNode node;
    private final Partition[] partitions;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final boolean loadedBefore;

    private final AtomicLong overloaded = new AtomicLong();
    private final AtomicLong overQuota = new AtomicLong();
    private final AtomicLong badRequests = new AtomicLong();
    private final AtomicLong corrupt = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    private SharedNode(SluiceConfig config, SluiceNode node) {
        this.config = config;
        this.node = node;
        List<String> names = config.partitions();
        this.partitions = new Partition[names.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = node.partition(names.get(i));
        }
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
        this.loadedBefore = checkMetadata();
    }

    /** Opens the engine or joins the open one; pair every call with {@link #release()}. */
    static SharedNode acquire(SluiceConfig config) {
        synchronized (LOCK) {
            if (current != null) {
                if (!current.config.equals(config)) {
                    throw new IllegalStateException("one Sluice engine per JVM: one is already open at "
                            + current.config.dataDir() + " with different settings (" + current.config
                            + "); every client thread must use the same sluice.* properties");
                }
                current.refs++;
                return current;
            }
            checkPartitionsOnDisk(config);
            SluiceNode node = Sluice.open(config);
            SharedNode shared;
            try {
                shared = new SharedNode(config, node);
            } catch (RuntimeException e) {
                node.close();
                throw e;
            }
            shared.refs = 1;
            current = shared;
            log.debug("opened Sluice at {} with partitions {}", config.dataDir(), config.partitions());
            return shared;
        }
    }

    /** Drops one reference; the last one closes the engine (flushing nothing: the WAL holds every write). */
    void release() {
        synchronized (LOCK) {
            if (refs <= 0) {
                throw new IllegalStateException("Sluice engine released more often than acquired");
            }
            if (--refs > 0) {
                return;
            }
            current = null;
            node.close();
            reportErrors();
        }
    }

    /** Whether the store already held binding metadata when opened (i.e. something was loaded before). */
    boolean loadedBefore() {
        return loadedBefore;
    }

    SluiceConfig config() {
        return config;
    }

    Partition partitionFor(byte[] storedKey) {
        if (partitions.length == 1) {
            return partitions[0];
        }
        return partitions[(int) Long.remainderUnsigned(fnv1a64(storedKey), partitions.length)];
    }

    Partition[] partitions() {
        return partitions;
    }

    ReentrantLock stripeFor(byte[] storedKey) {
        long h = fnv1a64(storedKey);
        return stripes[(int) ((h ^ (h >>> 32)) & (STRIPES - 1))];
    }

    /** FNV-1a, 64 bit. Fixed forever: it decides which partition holds a record. */
    static long fnv1a64(byte[] data) {
        long h = 0xcbf29ce484222325L;
        for (byte b : data) {
            h ^= b & 0xFF;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /**
     * Maps a failure to the status YCSB records: refused by admission → SERVICE_UNAVAILABLE, over a tenant quota →
     * FORBIDDEN, a value this binding cannot decode → UNEXPECTED_STATE, a bad argument (e.g. a key over the engine's
     * limit) → BAD_REQUEST, anything else → ERROR. The first few unexpected failures are logged with their stack trace.
     */
    Status statusFor(RuntimeException e, String operation) {
        if (e instanceof OverloadedException) {
            overloaded.incrementAndGet();
            return Status.SERVICE_UNAVAILABLE;
        }
        if (e instanceof QuotaExceededException) {
            overQuota.incrementAndGet();
            return Status.FORBIDDEN;
        }
        AtomicLong counter;
        Status status;
        if (e instanceof RecordFormatException) {
            counter = corrupt;
            status = Status.UNEXPECTED_STATE;
        } else if (e instanceof IllegalArgumentException) {
            counter = badRequests;
            status = Status.BAD_REQUEST;
        } else {
            counter = errors;
            status = Status.ERROR;
        }
        if (counter.incrementAndGet() <= LOGGED_ERRORS) {
            log.warn("Sluice YCSB {} failed ({}): {}", operation, status.getName(), e.toString(), e);
        }
        return status;
    }

    private void reportErrors() {
        long o = overloaded.get(), q = overQuota.get(), b = badRequests.get(), c = corrupt.get(), x = errors.get();
        if (o + q + b + c + x > 0) {
            log.warn(
                    "Sluice YCSB binding: {} refused by admission (SERVICE_UNAVAILABLE), {} over quota (FORBIDDEN), {}"
                            + " bad requests (BAD_REQUEST), {} undecodable records (UNEXPECTED_STATE), {} errors"
                            + " (ERROR)",
                    o,
                    q,
                    b,
                    c,
                    x);
        }
    }

    /**
     * Before the open (which would create missing partitions): a store whose partition directories are not the
     * configured ones was loaded with another layout. Opening it would create the new partitions, find no records
     * in them and answer every read NOT_FOUND with exit 0 (a CLI probe, 2026-11-28: loaded with partitions t1,t2 and
     * run with sluice.partitions=2, 200 of 200 reads missed and the store kept four partitions).
     */
    private static void checkPartitionsOnDisk(SluiceConfig config) {
        java.nio.file.Path dir = config.dataDir().resolve("partitions");
        if (!java.nio.file.Files.isDirectory(dir)) {
            return;
        }
        java.util.Set<String> onDisk = new java.util.TreeSet<>();
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.list(dir)) {
            s.filter(java.nio.file.Files::isDirectory)
                    .forEach(p -> onDisk.add(p.getFileName().toString()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + dir, e);
        }
        java.util.Set<String> wanted = new java.util.TreeSet<>(config.partitions());
        if (!onDisk.isEmpty() && !onDisk.equals(wanted)) {
            throw new StoreCorruptedException("the store at " + config.dataDir() + " has partitions " + onDisk
                    + " but is opened with " + wanted + ": records would be looked up in partitions that do not hold"
                    + " them. Use the sluice.partitions (or the partitions of sluice.config) of the load, or a fresh"
                    + " sluice.dir.");
        }
    }

    /**
     * Writes or checks the metadata record; returns whether it existed. Every partition is asked: the record lives in
     * the first partition of the load's list, which is not the first of a list given in another order.
     */
    private boolean checkMetadata() {
        String expected = "format=" + META_FORMAT + "\npartitions=" + String.join(",", config.partitions()) + "\n";
        byte[] stored = null;
        for (Partition p : partitions) {
            stored = p.get(META_KEY);
            if (stored != null) {
                break;
            }
        }
        if (stored == null) {
            partitions[0].put(META_KEY, expected.getBytes(StandardCharsets.UTF_8));
            return false;
        }
        String actual = new String(stored, StandardCharsets.UTF_8);
        if (!actual.equals(expected)) {
            throw new StoreCorruptedException("the store at " + config.dataDir()
                    + " was written by the YCSB binding with [" + actual.strip().replace('\n', ' ')
                    + "] but is opened with [" + expected.strip().replace('\n', ' ')
                    + "]: records would be looked up in the wrong partition. Use the same sluice.partitions as"
                    + " for load, or a fresh sluice.dir.");
        }
        return true;
    }
}
