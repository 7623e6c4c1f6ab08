package dev.sluice.e2e;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * Test-only SP-LSM shape: {@code cruise-sp-lsm}'s transit L0 (compaction trigger 1, slowdown/stop 100/200) with a
 * 16 MiB buffer (2 MiB × 8), so a backlog of L0→L1 merges builds up in seconds.
 */
public class SmallSpLsmProfile implements Profile {
    @Override
    public String name() {
        return "test-small-sp-lsm";
    }

    @Override
    public String description() {
        return "test only: write_buffer_size 2 MiB x 8, L0 compaction trigger 1, L0 slowdown/stop 100/200";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        options.setWriteBufferSize(2L << 20)
                .setMaxWriteBufferNumber(8)
                .setLevel0FileNumCompactionTrigger(1)
                .setLevel0SlowdownWritesTrigger(100)
                .setLevel0StopWritesTrigger(200);
    }
}
