package dev.sluice.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.SluiceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BindingPropertiesTest {
    @TempDir
    Path cwd;

    private SluiceConfig config(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        p.setProperty("recordcount", "1000"); // YCSB's own properties are none of the binding's business
        return BindingProperties.toSluiceConfig(p, cwd);
    }

    @Test
    void defaults() {
        SluiceConfig c = config();
        assertThat(c.dataDir()).isEqualTo(cwd.resolve("ycsb-data").toAbsolutePath());
        assertThat(c.partitions()).containsExactly("p0");
        assertThat(c.profile()).isEqualTo("rocksdb-default");
        assertThat(c.controls()).isEmpty();
        assertThat(c.syncWrites()).isFalse();
        assertThat(c.env()).isEqualTo("auto");
    }

    @Test
    void mapsEveryProperty() {
        SluiceConfig c = config(
                "sluice.dir", "data/x",
                "sluice.profile", "cruise-sp-lsm",
                "sluice.controls", "admission, adoc",
                "sluice.partitions", "4",
                "sluice.sync", "TRUE",
                "sluice.env", "priority",
                "sluice.env.device.iops", "3000",
                "sluice.control.admission.k1", "0.5",
                "sluice.control.adoc.window.ms", "1000");
        assertThat(c.dataDir()).isEqualTo(cwd.resolve("data/x").toAbsolutePath());
        assertThat(c.profile()).isEqualTo("cruise-sp-lsm");
        assertThat(c.controls()).containsExactly("admission", "adoc");
        assertThat(c.partitions()).containsExactly("p0", "p1", "p2", "p3");
        assertThat(c.syncWrites()).isTrue();
        assertThat(c.env()).isEqualTo("priority");
        assertThat(c.envOptions()).isEqualTo(Map.of("device.iops", "3000"));
        assertThat(c.controlOptions("admission")).isEqualTo(Map.of("k1", "0.5"));
        assertThat(c.controlOptions("adoc")).isEqualTo(Map.of("window.ms", "1000"));
    }

    @Test
    void controlsNoneOrEmptyMeansNoControllers() {
        assertThat(config("sluice.controls", "none").controls()).isEmpty();
        assertThat(config("sluice.controls", "").controls()).isEmpty();
    }

    @Test
    void sameDirectoryGivesEqualConfigs() {
        // SharedNode compares configs to decide whether a client thread may join the open engine
        assertThat(config("sluice.dir", "./ycsb-data/")).isEqualTo(config());
    }

    @Test
    void errorsNameTheProperty() {
        assertThatThrownBy(() -> config("sluice.partitions", "abc"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sluice.partitions = 'abc': not a whole number");
        assertThatThrownBy(() -> config("sluice.partitions", "0"))
                .hasMessageStartingWith("sluice.partitions = '0': must be between 1 and 1024");
        assertThatThrownBy(() -> config("sluice.sync", "yes"))
                .hasMessageStartingWith("sluice.sync = 'yes': must be true or false");
        assertThatThrownBy(() -> config("sluice.env", "fast"))
                .hasMessageStartingWith("sluice.env = 'fast': ")
                .hasMessageContaining("auto, priority, default");
        assertThatThrownBy(() -> config("sluice.controls", "Admission!"))
                .hasMessageStartingWith("sluice.controls = 'Admission!': ");
        assertThatThrownBy(() -> config("sluice.profile", " ")).hasMessageStartingWith("sluice.profile is empty");
        assertThatThrownBy(() -> config("sluice.control.admission", "1"))
                .hasMessageStartingWith("sluice.control.admission: expected sluice.control.<controller>.<key>");
        assertThatThrownBy(() -> config("sluice.control.adoc.x", "1"))
                .hasMessageContaining("options given for controller 'adoc'")
                .hasMessageContaining("sluice.X");
    }

    @Test
    void unknownSluicePropertiesAreErrors() {
        assertThatThrownBy(() -> config("sluice.partition", "2", "sluice.dirr", "x"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown Sluice binding properties [sluice.dirr, sluice.partition]")
                .hasMessageContaining("sluice.partitions");
    }

    @Test
    void configFileIsTheBaseAndPropertiesOverrideIt() throws IOException {
        Path file = cwd.resolve("conf/sluice.properties");
        Files.createDirectories(file.getParent());
        Files.writeString(
                file, "data.dir = elsewhere\nprofile = vlsm\nblock.cache.bytes = 1048576\npartitions = a,b\n");

        SluiceConfig c = config("sluice.config", "conf/sluice.properties", "sluice.profile", "flex-tenant");
        assertThat(c.blockCacheBytes()).isEqualTo(1_048_576); // from the file
        assertThat(c.profile()).isEqualTo("flex-tenant"); // overridden
        assertThat(c.partitions()).containsExactly("a", "b"); // file's partitions when sluice.partitions is absent
        assertThat(c.dataDir()).isEqualTo(cwd.resolve("ycsb-data").toAbsolutePath()); // data dir is the binding's
        assertThat(config("sluice.config", "conf/sluice.properties", "sluice.partitions", "3")
                        .partitions())
                .containsExactly("p0", "p1", "p2");

        Files.writeString(file, "no.such.key = 1\n");
        assertThatThrownBy(() -> config("sluice.config", "conf/sluice.properties"))
                .hasMessageStartingWith("sluice.config = " + file.toAbsolutePath())
                .hasMessageContaining("no.such.key");
        assertThatThrownBy(() -> config("sluice.config", "missing.properties"))
                .hasMessageStartingWith("sluice.config = ")
                .hasMessageContaining("does not exist");
        Files.write(file, new byte[] {'p', 'r', 'o', 'f', 'i', 'l', 'e', '=', (byte) 0xE9, '\n'});
        assertThatThrownBy(() -> config("sluice.config", "conf/sluice.properties"))
                .hasMessageContaining("is not valid UTF-8");
        Files.writeString(file, "profile = vlsm\nprofile = flex-tenant\n"); // Properties alone keeps the last
        assertThatThrownBy(() -> config("sluice.config", "conf/sluice.properties"))
                .hasMessageContaining("key profile is given twice");
    }

    @Test
    void partitionNames() {
        assertThat(BindingProperties.partitionNames(3)).isEqualTo(List.of("p0", "p1", "p2"));
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void validatedConfigNamesTheBindingPropertyOrTheConfigFile() throws IOException {
        assertThat(BindingProperties.toValidatedConfig(props("sluice.env.device.iops", "3000"), cwd)
                        .envOptions())
                .containsEntry("device.iops", "3000");
        assertThatThrownBy(() -> BindingProperties.toValidatedConfig(props("sluice.env.device.iops", "lots"), cwd))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sluice.env.device.iops = 'lots': ");
        assertThatThrownBy(() -> BindingProperties.toValidatedConfig(
                        props("sluice.controls", "admission", "sluice.control.admission.k1", "99"), cwd))
                .hasMessageStartingWith("sluice.control.admission.k1 = '99': ");
        Path file = Files.writeString(cwd.resolve("engine.properties"), "env.device.iops = -1\n");
        assertThatThrownBy(() -> BindingProperties.toValidatedConfig(props("sluice.config", file.toString()), cwd))
                .hasMessageStartingWith("invalid Sluice configuration (sluice.config = " + file + "): ")
                .hasMessageContaining("env.device.iops");
        assertThat(cwd.resolve("ycsb-data")).doesNotExist();
    }
}
