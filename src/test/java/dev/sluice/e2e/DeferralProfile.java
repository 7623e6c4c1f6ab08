package dev.sluice.e2e;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * Test-only tree for the deferral test: 1 MiB memtables × 4, L0 compaction trigger 2, slowdown/stop 10/20, static
 * level targets L1 = 1 MiB × 4 and 512 KiB SSTs, so that L2 and L3 exist after a few MiB and stage 2 (60 % of the
 * slowdown trigger = 6 L0 files) is reached in seconds.
 */
public class DeferralProfile implements Profile {
    @Override
    public String name() {
        return "test-deferral";
    }

    @Override
    public String description() {
        return "test only: write_buffer_size 1 MiB x 4, L0 trigger 2, slowdown/stop 10/20, static level targets L1 ="
                + " 1 MiB x 4, 512 KiB SSTs";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        options.setWriteBufferSize(1L << 20)
                .setMaxWriteBufferNumber(4)
                .setLevel0FileNumCompactionTrigger(2)
                .setLevel0SlowdownWritesTrigger(10)
                .setLevel0StopWritesTrigger(20)
                .setLevelCompactionDynamicLevelBytes(false)
                .setMaxBytesForLevelBase(1L << 20)
                .setMaxBytesForLevelMultiplier(4)
                .setTargetFileSizeBase(512L << 10);
    }
}
