package dev.sluice.e2e;

import dev.sluice.core.spi.Profile;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/** Test-only profile: 4 MiB memtables, 4 of them, so memory-pressure dynamics play out in seconds, not minutes. */
public class SmallMemtablesProfile implements Profile {
    @Override
    public String name() {
        return "test-small-memtables";
    }

    @Override
    public String description() {
        return "test only: write_buffer_size 4 MiB x 4";
    }

    @Override
    public void apply(Options options, BlockBasedTableConfig tableConfig) {
        options.setWriteBufferSize(4L << 20).setMaxWriteBufferNumber(4);
    }
}
