package dev.sluice.bench.workload;

import dev.sluice.core.KeyRange;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.WriteMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a phase's operation mix against one partition. The key space is shared across phases: {@code keyCount} is the
 * number of keys that exist (preloaded ones first); INSERT takes the next index. Values are slices of a random,
 * incompressible pool, so the device sees the bytes the scenario asks for.
 *
 * <p>{@link #execute} runs an operation with the synchronous API; {@link #executeAsync} submits the same operation (same
 * random draws, in the same order) with the asynchronous API, where the request waits for admission without a thread.
 */
public final class StoreWorkload implements AsyncOpTask {
    private static final int POOL_BYTES = 4 << 20;

    private final Partition partition;
    private final KeyCodec codec;
    private final int valueBytes;
    private final AtomicLong keyCount;
    private final OpMix mix;
    private final KeyDistribution distribution;
    private final int scanLength;
    private final byte[] pool;

    public StoreWorkload(
            Partition partition,
            KeyCodec codec,
            int valueBytes,
            AtomicLong keyCount,
            OpMix mix,
            KeyDistribution distribution,
            int scanLength,
            long seed) {
        this.partition = partition;
        this.codec = codec;
        this.valueBytes = valueBytes;
        this.keyCount = keyCount;
        this.mix = mix;
        this.distribution = distribution;
        this.scanLength = scanLength;
        this.pool = randomPool(seed, POOL_BYTES + valueBytes);
    }

    /**
     * {@code size} random bytes: each {@code nextLong} of {@code SplittableRandom(seed)} stored little-endian (the last
     * one cut). Written a long at a time: the runners build one pool per tenant and phase, and a byte-at-a-time loop over
     * 4 MiB took milliseconds, enough to start later tenants' open-loop arrivals late.
     */
    static byte[] randomPool(long seed, int size) {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int whole = size - size % 8;
        for (int i = 0; i < whole; i += 8) {
            buf.putLong(i, r.nextLong());
        }
        if (whole < size) {
            long v = r.nextLong();
            for (int i = whole; i < size; i++) {
                b[i] = (byte) (v >>> (8 * (i - whole)));
            }
        }
        return b;
    }

    /** A fresh value: a random slice of the pool. */
    public byte[] value(SplittableRandom rnd) {
        int off = rnd.nextInt(POOL_BYTES);
        return Arrays.copyOfRange(pool, off, off + valueBytes);
    }

    @Override
    public OpKind pick(SplittableRandom rnd) {
        return mix.pick(rnd.nextDouble());
    }

    private byte[] existingKey(SplittableRandom rnd) {
        return codec.key(distribution.next(Math.max(1, keyCount.get()), rnd));
    }

    /** Entries one SCAN reads: uniform in 1..2·scanLength−1, mean scanLength. */
    private int scanEntries(SplittableRandom rnd) {
        return scanLength <= 1 ? 1 : 1 + rnd.nextInt(2 * scanLength - 1);
    }

    /** The value an RMW writes: {@code fresh} with its first byte derived from the old value's, when both have one. */
    private static byte[] modified(byte[] old, byte[] fresh) {
        if (old != null && old.length > 0 && fresh.length > 0) {
            fresh[0] = (byte) (old[0] + 1);
        }
        return fresh;
    }

    @Override
    public void execute(OpKind kind, SplittableRandom rnd) {
        switch (kind) {
            case INSERT -> partition.put(codec.key(keyCount.getAndIncrement()), value(rnd));
            case UPDATE -> partition.put(existingKey(rnd), value(rnd));
            case READ -> partition.get(existingKey(rnd));
            case SCAN -> {
                int len = scanEntries(rnd);
                partition.scan(KeyRange.atLeast(existingKey(rnd)), len);
            }
            case RMW -> {
                byte[] key = existingKey(rnd);
                byte[] old = partition.get(key);
                partition.put(key, modified(old, value(rnd)));
            }
        }
    }

    /**
     * The same operation through the async API. RMW is a getAsync followed by a putAsync of the modified value (two
     * admissions, like the synchronous RMW); its fresh value is drawn before the get is submitted.
     */
    @Override
    public CompletableFuture<?> executeAsync(OpKind kind, SplittableRandom rnd) {
        return switch (kind) {
            case INSERT -> partition.putAsync(codec.key(keyCount.getAndIncrement()), value(rnd), WriteMode.DEFAULT);
            case UPDATE -> partition.putAsync(existingKey(rnd), value(rnd), WriteMode.DEFAULT);
            case READ -> partition.getAsync(existingKey(rnd));
            case SCAN -> {
                int len = scanEntries(rnd);
                yield partition.scanAsync(KeyRange.atLeast(existingKey(rnd)), len);
            }
            case RMW -> {
                byte[] key = existingKey(rnd);
                byte[] fresh = value(rnd);
                yield partition
                        .getAsync(key)
                        .thenCompose(old -> partition.putAsync(key, modified(old, fresh), WriteMode.DEFAULT));
            }
        };
    }

    @Override
    public boolean isRejection(RuntimeException e) {
        return e instanceof OverloadedException || e instanceof QuotaExceededException;
    }
}
