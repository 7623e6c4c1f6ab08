package dev.sluice.e2e;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * Test-only SP-LSM shape on a tiny tree: {@code cruise-sp-lsm}'s transit L0 (compaction trigger 1, slowdown/stop
 * 100/200) over static level targets of 1 MiB × 10, 2 MiB memtables and 1 MiB SSTs, so a base level several times
 * its target builds up in seconds.
 */
public class TinyLevelsProfile implements Profile {
    @Override
    public String name() {
        return "test-tiny-levels";
    }

    @Override
    public String description() {
        return "test only: write_buffer_size 2 MiB x 8, L0 compaction trigger 1, slowdown/stop 100/200, static level"
                + " targets L1 = 1 MiB x 10, 1 MiB SSTs";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        options.setWriteBufferSize(2L << 20)
                .setMaxWriteBufferNumber(8)
                .setLevel0FileNumCompactionTrigger(1)
                .setLevel0SlowdownWritesTrigger(100)
                .setLevel0StopWritesTrigger(200)
                .setLevelCompactionDynamicLevelBytes(false)
                .setMaxBytesForLevelBase(1L << 20)
                .setMaxBytesForLevelMultiplier(10)
                .setTargetFileSizeBase(1L << 20);
    }
}
