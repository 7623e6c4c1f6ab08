package dev.sluice.core.spi;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * A named, documented set of RocksDB options applied to every partition at open (docs/architecture.md §3.1). Found through
 * ServiceLoader ({@code META-INF/services/dev.sluice.core.spi.Profile}); core ships {@code rocksdb-default}.
 *
 * <p>{@link #apply} is called on Options that already carry Sluice's wiring (Env, shared block cache, statistics, event
 * listener); a profile sets tuning options only.
 */
public interface Profile {
    String name();

    /** What the profile does and which paper section it follows; shown in the configuration reference. */
    String description();

    void apply(Options options, BlockBasedTableConfig tableConfig);
}
