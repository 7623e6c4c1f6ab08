package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.LsmSnapshot;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilesTest {
    @TempDir
    Path dir;

    private LsmSnapshot open(String profile) {
        try (SluiceNode n = Sluice.open(SluiceConfig.builder(dir.resolve(profile))
                .env("default")
                .profile(profile)
                .build())) {
            return n.sample().partition("default");
        }
    }

    @Test
    void rocksdbDefaultIsStockRocksDb() {
        LsmSnapshot s = open("rocksdb-default");
        assertThat(s.writeBufferSize()).isEqualTo(64L << 20);
        assertThat(s.maxWriteBufferNumber()).isEqualTo(2);
        assertThat(s.l0SlowdownTrigger()).isEqualTo(20);
        assertThat(s.l0StopTrigger()).isEqualTo(36);
        assertThat(s.maxBackgroundJobs()).isEqualTo(2);
    }

    @Test
    void cruiseSpLsmHasTwelveMemtablesAndATransitL0() {
        LsmSnapshot s = open("cruise-sp-lsm");
        assertThat(s.maxWriteBufferNumber()).isEqualTo(12);
        assertThat(s.memtableBudgetBytes()).isEqualTo(12 * (64L << 20));
        assertThat(s.l0SlowdownTrigger()).isEqualTo(100);
        assertThat(s.l0StopTrigger()).isEqualTo(200);
        assertThat(s.maxBackgroundJobs()).isEqualTo(4);
    }

    /** The filter policy RocksDB recorded in the OPTIONS file it wrote for the profile's partition. */
    private String filterPolicy(String profile) throws Exception {
        open(profile);
        try (var files = java.nio.file.Files.walk(dir.resolve(profile))) {
            Path options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(java.util.Comparator.comparing(Path::toString))
                    .orElseThrow();
            return java.nio.file.Files.readAllLines(options).stream()
                    .map(String::strip)
                    .filter(l -> l.startsWith("filter_policy="))
                    .findFirst()
                    .orElseThrow();
        }
    }

    @Test
    void spLsmAndTheAblationProfileHaveABloomFilterAndStockHasNone() throws Exception {
        assertThat(filterPolicy("rocksdb-default")).isEqualTo("filter_policy=nullptr");
        assertThat(filterPolicy("cruise-sp-lsm")).contains("bloomfilter").contains("10");
        assertThat(filterPolicy("rocksdb-bloom")).contains("bloomfilter").contains("10");
    }

    @Test
    void everyProfileIsDocumented() {
        assertThat(Profiles.all()).containsKeys("rocksdb-default", "cruise-sp-lsm", "rocksdb-bloom");
        Profiles.all().values().forEach(p -> assertThat(p.description()).hasSizeGreaterThan(40));
    }
}
