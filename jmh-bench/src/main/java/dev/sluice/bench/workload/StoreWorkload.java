package dev.sluice.bench.workload;

import dev.sluice.core.KeyRange;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.QuotaExceededException;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a phase's operation mix against one partition. The key space is shared across phases: {@code keyCount} is the
 * number of keys that exist (preloaded ones first); INSERT takes the next index. Values are slices of a random,
 * incompressible pool, so the device sees the bytes the scenario asks for.
 */
public final class StoreWorkload implements OpTask {
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

    static byte[] randomPool(long seed, int size) {
        byte[] b = new byte[size];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < size; i += 8) {
            long v = r.nextLong();
            for (int j = 0; j < 8 && i + j < size; j++) {
                b[i + j] = (byte) (v >>> (8 * j));
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

    @Override
    public void execute(OpKind kind, SplittableRandom rnd) {
        switch (kind) {
            case INSERT -> partition.put(codec.key(keyCount.getAndIncrement()), value(rnd));
            case UPDATE -> partition.put(existingKey(rnd), value(rnd));
            case READ -> partition.get(existingKey(rnd));
            case SCAN -> {
                int len = scanLength <= 1 ? 1 : 1 + rnd.nextInt(2 * scanLength - 1);
                partition.scan(KeyRange.atLeast(existingKey(rnd)), len);
            }
            case RMW -> {
                byte[] key = existingKey(rnd);
                byte[] old = partition.get(key);
                byte[] v = value(rnd);
                if (old != null && old.length > 0 && v.length > 0) {
                    v[0] = (byte) (old[0] + 1);
                }
                partition.put(key, v);
            }
        }
    }

    @Override
    public boolean isRejection(RuntimeException e) {
        return e instanceof OverloadedException || e instanceof QuotaExceededException;
    }
}
