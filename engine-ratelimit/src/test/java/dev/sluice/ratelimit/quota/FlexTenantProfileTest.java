package dev.sluice.ratelimit.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Profiles;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class FlexTenantProfileTest {
    @Test
    void isRegisteredAndSetsFlexEngineSizes() {
        RocksDB.loadLibrary();
        assertThat(Profiles.get("flex-tenant")).isInstanceOf(FlexTenantProfile.class);
        try (Options o = new Options()) {
            Profiles.get("flex-tenant").apply(o, new BlockBasedTableConfig());
            assertThat(o.writeBufferSize()).isEqualTo(16L << 20);
            assertThat(o.maxWriteBufferNumber()).isEqualTo(4);
            assertThat(o.level0FileNumCompactionTrigger()).isEqualTo(4);
            assertThat(o.maxBytesForLevelBase()).isEqualTo(64L << 20);
            assertThat(o.targetFileSizeBase()).isEqualTo(16L << 20);
        }
    }
}
