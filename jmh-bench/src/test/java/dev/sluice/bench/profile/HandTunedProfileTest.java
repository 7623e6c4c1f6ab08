package dev.sluice.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Profiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class HandTunedProfileTest {
    static {
        RocksDB.loadLibrary();
    }

    @AfterEach
    void clear() {
        System.clearProperty(HandTunedProfile.JOBS_PROPERTY);
        System.clearProperty(HandTunedProfile.BATCH_PROPERTY);
    }

    @Test
    void stockOptionsWithEightJobsAndAHalfGigabyteBatchByDefault() {
        try (Options o = new Options()) {
            Profiles.get("rocksdb-tuned").apply(o, new BlockBasedTableConfig());
            assertThat(o.maxBackgroundJobs()).isEqualTo(8);
            assertThat(o.writeBufferSize()).isEqualTo(512L << 20);
            assertThat(o.maxWriteBufferNumber()).isEqualTo(2);
            assertThat(o.level0SlowdownWritesTrigger()).isEqualTo(20);
        }
    }

    @Test
    void systemPropertiesScaleItAndBadValuesAreNamed() {
        System.setProperty(HandTunedProfile.JOBS_PROPERTY, "6");
        System.setProperty(HandTunedProfile.BATCH_PROPERTY, "134_217_728");
        try (Options o = new Options()) {
            new HandTunedProfile().apply(o, new BlockBasedTableConfig());
            assertThat(o.maxBackgroundJobs()).isEqualTo(6);
            assertThat(o.writeBufferSize()).isEqualTo(128L << 20);
        }
        System.setProperty(HandTunedProfile.JOBS_PROPERTY, "0");
        try (Options o = new Options()) {
            assertThatThrownBy(() -> new HandTunedProfile().apply(o, new BlockBasedTableConfig()))
                    .hasMessageContaining(HandTunedProfile.JOBS_PROPERTY)
                    .hasMessageContaining("out of range");
        }
    }
}
