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

    @Test
    void everyProfileIsDocumented() {
        assertThat(Profiles.all()).containsKeys("rocksdb-default", "cruise-sp-lsm");
        Profiles.all().values().forEach(p -> assertThat(p.description()).hasSizeGreaterThan(40));
    }
}
