package dev.sluice.compaction.rocksdb;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * Stock RocksDB with 8 MiB SSTs and nothing else: the "RocksDB-8MB" ablation of vLSM §6 (smaller SSTs alone, with
 * RocksDB's tiered L0, 64 MiB memtables and its dynamic level targets), which separates the effect of the SST size from
 * that of vLSM's layout and FIFO L0.
 */
public final class Rocksdb8MbProfile implements Profile {
    public static final String NAME = "rocksdb-8mb";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Stock RocksDB 9.10.0 options with target_file_size_base = 8 MiB and nothing else: vLSM's RocksDB-8MB"
                + " ablation (smaller SSTs alone; memtables, L0 triggers and dynamic level targets stay stock).";
    }

    @Override
    public void apply(Options o, BlockBasedTableConfig t) {
        o.setTargetFileSizeBase(VlsmProfile.SST_BYTES);
    }
}
