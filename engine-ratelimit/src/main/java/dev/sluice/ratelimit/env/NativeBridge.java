package dev.sluice.ratelimit.env;

/**
 * The JNI entry points of {@code libsluice_env.so} (src/main/native/jni_bridge.cc). Every method is cheap and called
 * at most a few times per control tick — never per I/O. Callers must have loaded the library through {@link
 * NativeLoader#load()} and must not pass a freed handle ({@link PriorityEnv} guards that with its lock).
 */
final class NativeBridge {
    /** Bumped with every change of a signature or of an exported array layout. */
    static final int ABI_VERSION = 3;

    /** Fields per class in {@link #readStats} (see {@link NativeStats}). */
    static final int STAT_FIELDS = 33;

    static final int DEVICE_FIELDS = 9;

    /**
     * granted units, granted bytes, waiting, window starts x 4, in flight x 4, granted write bytes, foreground overruns.
     */
    static final int SCHEDULER_FIELDS = 3 + 4 + 4 + 1 + 1;

    private NativeBridge() {}

    static native int abiVersion();

    static native int statFields();

    static native int deviceFields();

    static native long create();

    static native void destroy(long state);

    static native long newEnv(long state);

    static native void deleteEnv(long env);

    static native int registerPartition(long state, String name, String[] dirs);

    /** {@code replace} false: add or update these entries; true: they are the partition's whole map. */
    static native void updateFileLevels(long state, int partition, long[] fileNumbers, int[] levels, boolean replace);

    /** The compaction rank of a file (0 = L0, 1 = base level, ...; -1 = unknown). Test hook. */
    static native int fileRank(long state, int partition, long fileNumber);

    /** Switches the emulated machine off; out = {files shortened, bytes dropped}. */
    static native void powerCut(long state, long[] out);

    static native boolean poweredOff(long state);

    /** Files the power-cut emulation tracks now (written through the Env and not deleted). */
    static native long trackedFiles(long state);

    static native int partitionCount(long state);

    /** {@code partition} -2 = node total, -1 = I/O outside every registered directory. */
    static native void readStats(long state, int partition, long[] out);

    static native void setClassLimit(long state, int ioClass, double opsPerSecond, double bytesPerSecond);

    /** Number of classes with an active cap (test hook). */
    static native int capsOn(long state);

    /** Caps one partition's background I/O (flush, compaction, prefetch) at bytes/s; ≤ 0 removes the cap. */
    static native void setPartitionBackgroundLimit(long state, int partition, double bytesPerSecond);

    /** Longest scheduler wait of a foreground I/O before it proceeds as an overrun; 0 = unbounded. */
    static native void setForegroundMaxWait(long state, long nanos);

    static native void setPolicy(
            long state,
            int kind,
            int[] tierOfClass,
            double[] weights,
            boolean strictTopTier,
            long starvationNanos,
            double nodeOpsPerSecond,
            double nodeBytesPerSecond,
            double nodeWriteBytesPerSecond,
            double paidIops,
            double minWindow,
            double paceSeconds);

    static native void setChunkBytes(long state, long bytes);

    /** {@code bytes} &lt; 0: the class takes the node's chunk size again. */
    static native void setClassChunkBytes(long state, int ioClass, long bytes);

    static native void setWriteBurstNanos(long state, long nanos);

    static native void configureDevice(
            long state,
            boolean enabled,
            double iops,
            double readBytesPerSecond,
            double writeBytesPerSecond,
            long baseLatencyNanos,
            double overdraftPool,
            long ioUnitBytes);

    static native void readDeviceStats(long state, long[] out);

    static native void readSchedulerStats(long state, long[] out);

    static native double budgetUse(long state);

    static native int addFault(
            long state,
            int classMask,
            int fileKindMask,
            int opMask,
            long afterOps,
            long maxHits,
            double probability,
            int action,
            long delayNanos);

    static native boolean removeFault(long state, int id);

    static native void clearFaults(long state);

    static native long faultHits(long state, int id);

    static native long measureInterposition(long state, int mode, long iterations);

    /** One synthetic I/O through the whole pipeline (no file); returns elapsed ns, or -1 when a fault failed it. */
    static native long syntheticIo(long state, int ioClass, int op, long bytes, boolean urgent);
}
