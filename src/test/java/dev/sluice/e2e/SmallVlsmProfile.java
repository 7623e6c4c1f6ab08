package dev.sluice.e2e;

import dev.sluice.compaction.rocksdb.VlsmProfile;

/** Test-only: the {@code vlsm} tree shape at 512-KiB SSTs and memtables (L1 = 4 MiB, L2 = 128 MiB). */
public class SmallVlsmProfile extends VlsmProfile {
    public SmallVlsmProfile() {
        super("test-vlsm-small", 512L << 10);
    }
}
