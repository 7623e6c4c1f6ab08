package dev.sluice.ratelimit.quota;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * FlexEngine's per-partition LSM sizes for small co-located tenants (§5.1): "the write buffer size is set to a
 * relatively small 16MB ... a maximum of 4 write buffers, with both L0 and L1 triggering compactions with the next
 * levels when their sizes reach 64MB". On RocksDB 9.10 that is:
 *
 * <ul>
 *   <li>{@code write_buffer_size = 16 MiB}, {@code max_write_buffer_number = 4};
 *   <li>L0 reaching 64 MB = {@code level0_file_num_compaction_trigger = 4} flushed files of about 16 MiB each — an
 *       <b>approximation</b>: RocksDB triggers L0 compaction by file count, not bytes, so small or compressed flushes
 *       reach the trigger below 64 MB;
 *   <li>L1 reaching 64 MB = {@code max_bytes_for_level_base = 64 MiB} (with RocksDB's default dynamic level bytes the
 *       base level may be deeper than L1 while the tree is small), {@code target_file_size_base = 16 MiB} so L1 holds
 *       several files.
 * </ul>
 *
 * Everything else stays RocksDB's default. Thread-safe (stateless).
 */
public final class FlexTenantProfile implements Profile {
    public static final String NAME = "flex-tenant";
    private static final long MIB = 1024L * 1024;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "FlexEngine §5.1 sizes for small co-located tenants: write_buffer_size 16 MiB, max_write_buffer_number 4,"
                + " L0 compaction trigger 4 files (≈ 64 MB of 16 MiB flushes; RocksDB counts files, not bytes),"
                + " max_bytes_for_level_base 64 MiB, target_file_size_base 16 MiB; the rest RocksDB's defaults.";
    }

    @Override
    public void apply(Options o, BlockBasedTableConfig t) {
        o.setWriteBufferSize(16 * MIB)
                .setMaxWriteBufferNumber(4)
                .setLevel0FileNumCompactionTrigger(4)
                .setMaxBytesForLevelBase(64 * MIB)
                .setTargetFileSizeBase(16 * MIB);
    }
}
