package dev.sluice.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad cache options are refused at open with the key, the value and the range; nothing is created. */
class CacheConfigTest {
    @TempDir
    Path dir;

    @Test
    void aBadSizeIsRefusedNamingTheKey() {
        Path data = dir.resolve("store");
        for (String[] bad : new String[][] {{"bytes", "lots"}, {"bytes", "1024"}, {"passive.threshold", "-1"}}) {
            SluiceConfig cfg = SluiceConfig.builder(data)
                    .controls("calcspar-cache")
                    .controlOption("calcspar-cache", bad[0], bad[1])
                    .build();
            assertThatThrownBy(() -> Sluice.open(cfg).close())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("control.calcspar-cache." + bad[0])
                    .hasMessageContaining(bad[1]);
        }
        assertThat(Files.exists(data)).isFalse();
    }

    @Test
    void twoPartitionsShareOneSpaceAndKeepTheirKeysApart() throws Exception {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .partitions("a", "b")
                .controls("calcspar-cache")
                .build();
        byte[] k = "same-key".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (SluiceNode node = Sluice.open(cfg)) {
            node.partition("a").put(k, new byte[] {1});
            node.partition("b").put(k, new byte[] {2});
            for (int i = 0; i < 3; i++) {
                assertThat(node.partition("a").get(k)).containsExactly(1);
                assertThat(node.partition("b").get(k)).containsExactly(2);
            }
            node.partition("a").delete(k);
            assertThat(node.partition("a").get(k)).isNull();
            assertThat(node.partition("b").get(k)).containsExactly(2);
        }
    }
}
