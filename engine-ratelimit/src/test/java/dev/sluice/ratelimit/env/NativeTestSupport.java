package dev.sluice.ratelimit.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.core.sensor.IoClass;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** Shared helpers of the native Env tests: the platform assumption, small RocksDB options, level-map pushes. */
final class NativeTestSupport {
    private NativeTestSupport() {}

    /**
     * Skips the calling test off linux-x86_64 (the only platform the native library is built for). On linux-x86_64 the
     * library must load: a load failure fails the test rather than skipping it.
     */
    static void requireNative() {
        assumeTrue(
                NativeLoader.supportedPlatform(),
                "the native priority Env is built for linux-x86_64 only; this is " + System.getProperty("os.name") + "-"
                        + System.getProperty("os.arch"));
        assertThat(PriorityEnv.unavailableReason())
                .as("native priority Env load")
                .isEmpty();
    }

    /**
     * Small, deterministic options: no compression, no block cache (every block read reaches the file system), no
     * automatic compactions unless {@code autoCompactions}, static level targets.
     */
    static Options options(PriorityEnv env, boolean autoCompactions) {
        Options o = new Options()
                .setCreateIfMissing(true)
                .setEnv(env.env())
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setWriteBufferSize(4L << 20)
                .setDisableAutoCompactions(!autoCompactions)
                .setLevelCompactionDynamicLevelBytes(false)
                .setMaxBackgroundJobs(2);
        o.setTableFormatConfig(new BlockBasedTableConfig().setNoBlockCache(true));
        return o;
    }

    /** Pushes the DB's current file-number → level map, as the node does after flushes and compactions. */
    static void pushLevels(PriorityEnv env, String partition, RocksDB db) {
        Map<Long, Integer> m = new HashMap<>();
        for (LiveFileMetaData f : db.getLiveFilesMetaData()) {
            m.put(fileNumber(f.fileName()), f.level());
        }
        env.replaceFileLevels(partition, m);
    }

    static long fileNumber(String name) {
        String base = name.substring(name.lastIndexOf('/') + 1);
        return Long.parseLong(base.substring(0, base.indexOf('.')));
    }

    static byte[] key(int i) {
        return String.format("key%08d", i).getBytes();
    }

    static byte[] value(int i, int size) {
        byte[] v = new byte[size];
        for (int j = 0; j < size; j++) {
            v[j] = (byte) (i * 31 + j * 7);
        }
        return v;
    }

    /** Writes keys [from, to) with values of {@code size} bytes. */
    static void fill(RocksDB db, int from, int to, int size) throws RocksDBException {
        for (int i = from; i < to; i++) {
            db.put(key(i), value(i, size));
        }
    }

    static Path dir(Path root, String name) {
        return root.resolve(name);
    }

    static long ops(IoDetail d, IoClass c) {
        return d.get(c).ops();
    }
}
