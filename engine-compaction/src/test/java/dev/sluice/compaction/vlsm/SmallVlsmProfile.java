package dev.sluice.compaction.vlsm;

import dev.sluice.compaction.rocksdb.VlsmProfile;

/** The vlsm shape at 256 KiB SSTs (L1 = 2 MiB, L2 = 64 MiB), so tests reach L1 and L2 with a few MB. */
public final class SmallVlsmProfile extends VlsmProfile {
    public static final String NAME = "test-vlsm-small";
    public static final long SST = 256 << 10;

    public SmallVlsmProfile() {
        super(NAME, SST);
    }
}
