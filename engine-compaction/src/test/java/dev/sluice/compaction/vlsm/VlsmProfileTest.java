package dev.sluice.compaction.vlsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Profiles;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionPriority;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;

/** The vlsm and rocksdb-8mb profiles' options, read back from a live RocksDB (its sampled state and its OPTIONS file). */
class VlsmProfileTest {
    static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    @Test
    void vlsmProfileSetsTheTreeShapeOfThePaper() throws Exception {
        Path data = dir.resolve("vlsm");
        try (SluiceNode n = Sluice.open(
                SluiceConfig.builder(data).env("default").profile("vlsm").build())) {
            n.defaultPartition().put(new byte[] {1}, new byte[] {2});
            n.defaultPartition().flush();
            LsmSnapshot s = n.sample().partition("default");
            assertThat(s.writeBufferSize()).isEqualTo(8 * MIB);
            assertThat(s.maxWriteBufferNumber()).isEqualTo(16);
            assertThat(s.memtableBudgetBytes()).isEqualTo(128 * MIB); // stock's 2 x 64 MiB
            assertThat(s.l0CompactionTrigger()).isEqualTo(4);
            assertThat(s.l0SlowdownTrigger()).isEqualTo(20);
            assertThat(s.l0StopTrigger()).isEqualTo(36);
            assertThat(s.levels().get(1).targetBytes()).as("L1 = f x SST").isEqualTo(64 * MIB);
            assertThat(s.levels().get(2).targetBytes()).as("L2 = Φ x L1").isEqualTo(32 * 64 * MIB);
            assertThat(s.levels().get(3).targetBytes()).as("L3 = f x L2").isEqualTo(8 * 32 * 64 * MIB);
        }
        ColumnFamilyOptions cf = persisted(data.resolve("partitions/default"));
        assertThat(cf.targetFileSizeBase()).isEqualTo(8 * MIB);
        assertThat(cf.targetFileSizeMultiplier()).isEqualTo(1);
        assertThat(cf.levelCompactionDynamicLevelBytes()).isFalse();
        assertThat(cf.maxBytesForLevelBase()).isEqualTo(64 * MIB);
        assertThat(cf.maxBytesForLevelMultiplier()).isEqualTo(8.0);
        assertThat(cf.maxBytesForLevelMultiplierAdditional()).startsWith(1, 4, 1);
        assertThat(cf.maxCompactionBytes()).isEqualTo(64 * MIB);
        assertThat(cf.compactionPriority()).isEqualTo(CompactionPriority.MinOverlappingRatio);
        assertThat(cf.minWriteBufferNumberToMerge()).isEqualTo(1);
    }

    @Test
    void rocksdb8MbChangesOnlyTheSstSize() throws Exception {
        Path stock = dir.resolve("stock"), small = dir.resolve("small");
        for (var e : List.of(new Object[] {stock, "rocksdb-default"}, new Object[] {small, "rocksdb-8mb"})) {
            try (SluiceNode n = Sluice.open(SluiceConfig.builder((Path) e[0])
                    .env("default")
                    .profile((String) e[1])
                    .build())) {
                n.defaultPartition().put(new byte[] {1}, new byte[] {2});
            }
        }
        ColumnFamilyOptions a = persisted(stock.resolve("partitions/default"));
        ColumnFamilyOptions b = persisted(small.resolve("partitions/default"));
        assertThat(b.targetFileSizeBase()).isEqualTo(8 * MIB);
        assertThat(a.targetFileSizeBase()).isEqualTo(64 * MIB);
        assertThat(b.writeBufferSize()).isEqualTo(a.writeBufferSize());
        assertThat(b.maxBytesForLevelBase()).isEqualTo(a.maxBytesForLevelBase());
        assertThat(b.levelCompactionDynamicLevelBytes()).isEqualTo(a.levelCompactionDynamicLevelBytes());
        assertThat(b.level0FileNumCompactionTrigger()).isEqualTo(a.level0FileNumCompactionTrigger());
        // max_compaction_bytes stays unset: RocksDB derives it as 25 x target_file_size_base
        assertThat(b.maxCompactionBytes()).isEqualTo(25 * 8 * MIB);
        assertThat(a.maxCompactionBytes()).isEqualTo(25 * 64 * MIB);
    }

    @Test
    void bothProfilesAreRegisteredAndDocumented() {
        assertThat(Profiles.all()).containsKeys("vlsm", "rocksdb-8mb");
        assertThat(Profiles.get("vlsm").description()).contains("8 MiB").contains("Φ = 32");
    }

    /** The column-family options RocksDB persisted in the partition's latest OPTIONS file. */
    private static ColumnFamilyOptions persisted(Path dbDir) throws Exception {
        RocksDB.loadLibrary();
        List<ColumnFamilyDescriptor> cfs = new ArrayList<>();
        try (ConfigOptions co = new ConfigOptions();
                DBOptions db = new DBOptions()) {
            OptionsUtil.loadLatestOptions(co, dbDir.toString(), db, cfs);
        }
        return cfs.get(0).getOptions();
    }
}
