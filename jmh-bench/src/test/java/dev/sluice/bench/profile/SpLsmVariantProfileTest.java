package dev.sluice.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Profiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class SpLsmVariantProfileTest {
    static {
        RocksDB.loadLibrary();
    }

    @AfterEach
    void clear() {
        System.clearProperty(SpLsmVariantProfile.L0_TRIGGER_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.BASE_BYTES_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.MULTIPLIER_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.MAX_COMPACTION_BYTES_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.JOBS_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.SUBCOMPACTIONS_PROPERTY);
        System.clearProperty(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY);
    }

    @Test
    void unsetPropertiesLeaveCruiseSpLsmAsItIs() {
        try (Options plain = new Options();
                Options variant = new Options()) {
            Profiles.get("cruise-sp-lsm").apply(plain, new BlockBasedTableConfig());
            Profiles.get(SpLsmVariantProfile.NAME).apply(variant, new BlockBasedTableConfig());
            assertThat(variant.level0FileNumCompactionTrigger()).isEqualTo(plain.level0FileNumCompactionTrigger());
            assertThat(variant.maxBytesForLevelBase()).isEqualTo(plain.maxBytesForLevelBase());
            assertThat(variant.maxBytesForLevelMultiplier()).isEqualTo(plain.maxBytesForLevelMultiplier());
            assertThat(variant.maxWriteBufferNumber()).isEqualTo(12);
            assertThat(variant.maxCompactionBytes()).isEqualTo(plain.maxCompactionBytes());
            assertThat(variant.maxBackgroundJobs())
                    .isEqualTo(plain.maxBackgroundJobs())
                    .isEqualTo(4);
            assertThat(variant.maxSubcompactions())
                    .isEqualTo(plain.maxSubcompactions())
                    .isEqualTo(2);
            assertThat(plain.maxCompactionBytes())
                    .as("cruise-sp-lsm: three flushed memtables exceed it, so RocksDB starts no intra-L0 compaction")
                    .isEqualTo(3 * plain.writeBufferSize())
                    .isEqualTo(192L << 20);
            assertThat(plain.maxBytesForLevelMultiplier())
                    .as("cruise-sp-lsm: level size ratio 5, a smaller base level for every memory->L1 merge to rewrite")
                    .isEqualTo(5.0);
        }
    }

    @Test
    void propertiesSetTheShapeAndBadValuesAreNamed() {
        System.setProperty(SpLsmVariantProfile.L0_TRIGGER_PROPERTY, "4");
        System.setProperty(SpLsmVariantProfile.BASE_BYTES_PROPERTY, "536_870_912");
        System.setProperty(SpLsmVariantProfile.MULTIPLIER_PROPERTY, "4");
        System.setProperty(SpLsmVariantProfile.MAX_COMPACTION_BYTES_PROPERTY, "1_677_721_600");
        try (Options o = new Options()) {
            new SpLsmVariantProfile().apply(o, new BlockBasedTableConfig());
            assertThat(o.maxCompactionBytes()).isEqualTo(1600L << 20);
            assertThat(o.level0FileNumCompactionTrigger()).isEqualTo(4);
            assertThat(o.maxBytesForLevelBase()).isEqualTo(512L << 20);
            assertThat(o.maxBytesForLevelMultiplier()).isEqualTo(4.0);
            assertThat(o.level0SlowdownWritesTrigger()).isEqualTo(100);
        }
        System.setProperty(SpLsmVariantProfile.JOBS_PROPERTY, "3");
        System.setProperty(SpLsmVariantProfile.SUBCOMPACTIONS_PROPERTY, "1");
        try (Options o = new Options()) {
            new SpLsmVariantProfile().apply(o, new BlockBasedTableConfig());
            assertThat(o.maxBackgroundJobs()).isEqualTo(3);
            assertThat(o.maxSubcompactions()).isEqualTo(1);
        }
        System.setProperty(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY, "lowest");
        try (Options o = new Options()) {
            assertThatThrownBy(() -> new SpLsmVariantProfile().apply(o, new BlockBasedTableConfig()))
                    .hasMessageContaining(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY)
                    .hasMessageContaining("'lowest'");
        }
        System.clearProperty(SpLsmVariantProfile.COMPACTION_CPU_PROPERTY);
        System.setProperty(SpLsmVariantProfile.L0_TRIGGER_PROPERTY, "0");
        try (Options o = new Options()) {
            assertThatThrownBy(() -> new SpLsmVariantProfile().apply(o, new BlockBasedTableConfig()))
                    .hasMessageContaining(SpLsmVariantProfile.L0_TRIGGER_PROPERTY)
                    .hasMessageContaining("out of range");
        }
    }
}
