package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening stores across modules: real controllers, the priority Env's power-cut emulation. */
class StoreOpenE2eTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** An invalid controller option on an existing store: refused before any partition is opened or rewritten. */
    @Test
    void anInvalidControlOptionLeavesAnExistingStoreByteForByteUnchanged() throws IOException {
        try (SluiceNode n = Sluice.open(
                SluiceConfig.builder(dir).env("default").partitions("a", "b").build())) {
            for (int i = 0; i < 100; i++) {
                n.partition("a").put(key(i), new byte[50], WriteMode.SYNC); // unflushed: an open would replay it
                n.partition("b").put(key(i), new byte[50], WriteMode.SYNC);
            }
        }
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(dir)
                        .env("default")
                        .partitions("a", "b")
                        .controls(List.of("admission"))
                        .controlOption("admission", "wait.max.ms", "not-a-number")
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.admission");
        assertThat(hashes(dir)).isEqualTo(before);
        Path fresh = dir.resolve("fresh");
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(fresh)
                        .env("default")
                        .controls(List.of("admission"))
                        .controlOption("admission", "wait.max.ms", "not-a-number")
                        .build()))
                .isInstanceOf(ConfigException.class);
        assertThat(fresh).doesNotExist();
    }

    /**
     * SYNC and ASYNC writes through a node on the priority Env, then a power cut (every file the Env wrote falls back to
     * its last synced length): the store opens, every SYNC write is there, and it accepts writes.
     */
    @Test
    void afterAPowerCutTheStoreOpensWithEverySyncWrite() throws Exception {
        SluiceConfig cfg =
                SluiceConfig.builder(dir).env("priority").controls("test-hooks").build();
        SluiceNode node = Sluice.open(cfg);
        PriorityEnv env = NodeHooks.ENVS.remove(cfg.partitions().get(0));
        for (int i = 0; i < 300; i++) {
            node.defaultPartition().put(key(i), ("sync" + i).getBytes(), WriteMode.SYNC);
        }
        for (int i = 300; i < 600; i++) {
            node.defaultPartition().put(key(i), ("async" + i).getBytes(), WriteMode.ASYNC);
        }
        PriorityEnv.PowerCut cut = env.powerCut();
        assertThat(cut.filesTruncated()).as("the WAL lost its unsynced tail").isPositive();
        try {
            node.close(); // the "machine" is off: close errors are expected
        } catch (RuntimeException expected) {
            // RocksDB cannot write at close after the cut
        }
        try (SluiceNode n = Sluice.open(cfg)) {
            for (int i = 0; i < 300; i++) {
                assertThat(n.defaultPartition().get(key(i)))
                        .as("SYNC write %d", i)
                        .isEqualTo(("sync" + i).getBytes());
            }
            int async = 0;
            for (int i = 300; i < 600; i++) {
                async += n.defaultPartition().get(key(i)) != null ? 1 : 0;
            }
            assertThat(async).as("ASYNC writes after the last sync were lost").isZero();
            n.defaultPartition().put(key(9999), "after".getBytes(), WriteMode.SYNC);
            assertThat(n.defaultPartition().get(key(9999))).isEqualTo("after".getBytes());
        }
    }

    private static Map<String, String> hashes(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.forEach(all::add);
        }
        for (Path p : all) {
            String rel = root.relativize(p).toString();
            if (Files.isDirectory(p)) {
                m.put(rel + "/", "dir");
                continue;
            }
            try {
                m.put(
                        rel,
                        HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new AssertionError(e);
            }
        }
        return m;
    }
}
