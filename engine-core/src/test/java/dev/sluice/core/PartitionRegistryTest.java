package dev.sluice.core;

import static dev.sluice.core.StoreOpenSafetyTest.hashes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code <data.dir>/PARTITIONS} ({@link PartitionRegistry}): a partition the store created whose directory is gone is
 * refused, not reopened empty; a refused open changes no byte; a partition configured for the first time is still
 * created; stores without the list get one.
 */
class PartitionRegistryTest {
    @TempDir
    Path dir;

    /** Where a test moves a partition directory "away" (a volume not mounted), outside the store. */
    @TempDir
    Path elsewhere;

    private static SluiceConfig cfg(Path d, String... partitions) {
        return SluiceConfig.builder(d).env("default").partitions(partitions).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void store(String... partitions) {
        try (SluiceNode n = Sluice.open(cfg(dir, partitions))) {
            for (String p : partitions) {
                n.partition(p).put(b("k"), b("v-" + p), WriteMode.SYNC);
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private List<String> listed() throws IOException {
        return Files.readAllLines(dir.resolve("PARTITIONS")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .toList();
    }

    @Test
    void aNewStoreListsItsPartitionsAndANewlyConfiguredPartitionIsAdded() throws IOException {
        store("a", "b");
        assertThat(listed()).containsExactly("a", "b");
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "c"))) {
            assertThat(n.partition("c").get(b("k"))).isNull(); // new: created empty, as before
            n.partition("c").put(b("k"), b("v-c"), WriteMode.SYNC);
        }
        assertThat(listed()).as("b is not configured but stays listed").containsExactly("a", "b", "c");
        assertThat(dir.resolve("PARTITIONS.tmp")).doesNotExist();
    }

    @Test
    void aDeletedPartitionDirectoryIsRefusedNotReopenedEmpty() throws IOException {
        store("a", "b");
        Path b = dir.resolve("partitions/b");
        Path away = elsewhere.resolve("b");
        Files.move(b, away); // deleted by mistake, or a volume not mounted
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'b'")
                .hasMessageContaining("is missing")
                .hasMessageContaining("PARTITIONS")
                .hasMessageContaining("did not create the partition empty");
        assertThat(hashes(dir)).as("the refused open changed nothing").isEqualTo(before);
        assertThat(b).doesNotExist();
        // a node that does not configure b still opens
        try (SluiceNode n = Sluice.open(cfg(dir, "a"))) {
            assertThat(n.partition("a").get(b("k"))).isEqualTo(b("v-a"));
        }
        Files.move(away, b);
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("b").get(b("k"))).isEqualTo(b("v-b"));
        }
    }

    @Test
    void aPartitionThatLostCurrentAndEveryDataFileIsRefused() throws IOException {
        store("a");
        Path a = dir.resolve("partitions/a");
        try (var s = Files.list(a)) {
            for (Path f : s.toList()) {
                if (!StoreCheck.isCreationLeftover(f.getFileName().toString())) {
                    Files.delete(f);
                }
            }
        }
        // what is left (LOCK, LOG, IDENTITY, ...) looks like an interrupted creation, which is cleared and recreated
        // for a partition never created; this one was created, so its data is gone
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'a'")
                .hasMessageContaining("no CURRENT file");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    @Test
    void deletingTheLineStartsThePartitionOverEmpty() throws IOException {
        store("a", "b");
        deleteTree(dir.resolve("partitions/b"));
        Files.writeString(dir.resolve("PARTITIONS"), "a\n");
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("b").get(b("k"))).isNull();
            assertThat(n.partition("a").get(b("k"))).isEqualTo(b("v-a"));
        }
        assertThat(listed()).containsExactly("a", "b");
    }

    @Test
    void aStoreWithoutTheListGetsItFromThePartitionsOnDiskConfiguredOrNot() throws IOException {
        store("a", "b");
        Files.delete(dir.resolve("PARTITIONS")); // a store made before the list existed
        try (SluiceNode n = Sluice.open(cfg(dir, "a"))) {
            assertThat(n.partition("a").get(b("k"))).isEqualTo(b("v-a"));
        }
        assertThat(listed()).containsExactly("a", "b");
        Files.move(dir.resolve("partitions/b"), elsewhere.resolve("b"));
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b"))).hasMessageContaining("partition 'b'");
    }

    @Test
    void aPartitionCreatedByANodeThatDiedBeforeTheListWasWrittenIsAddedAtTheNextOpen() throws IOException {
        store("a", "b");
        Files.writeString(dir.resolve("PARTITIONS"), "a\n"); // the list as it was before b's creation
        Files.writeString(dir.resolve("PARTITIONS.tmp"), "a\nb"); // a rewrite cut short
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("b").get(b("k"))).isEqualTo(b("v-b"));
        }
        assertThat(listed()).containsExactly("a", "b");
    }

    @Test
    void aDamagedListIsRefusedNamingTheFileAndLine() throws IOException {
        store("a");
        Files.writeString(dir.resolve("PARTITIONS"), "# header\na\nno/such name\n");
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("PARTITIONS line 3")
                .hasMessageContaining("'no/such name' is not a partition name");
        assertThat(hashes(dir)).isEqualTo(before);

        Files.write(dir.resolve("PARTITIONS"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});
        before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("is not text");
        assertThat(hashes(dir)).isEqualTo(before);

        Files.delete(dir.resolve("PARTITIONS"));
        Files.createDirectory(dir.resolve("PARTITIONS"));
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("not a regular file");
    }

    /**
     * A list cut short (empty, or its last line without a newline) is refused, not read as a shorter list: read so, a
     * listed partition whose directory is also gone would be recreated empty and the list rewritten.
     */
    @Test
    void aListCutShortIsRefused() throws IOException {
        store("a", "tenant-b");
        Path list = dir.resolve("PARTITIONS");
        byte[] whole = Files.readAllBytes(list);
        deleteTree(dir.resolve("partitions/tenant-b"));
        for (byte[] cut : List.of(new byte[0], java.util.Arrays.copyOf(whole, whole.length - 3))) {
            Files.write(list, cut);
            Map<String, String> before = hashes(dir);
            assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "tenant-b")))
                    .isInstanceOf(StoreCorruptedException.class)
                    .hasMessageContaining(list.toString())
                    .hasMessageContaining("is cut short");
            assertThat(hashes(dir)).isEqualTo(before);
            assertThat(dir.resolve("partitions/tenant-b")).doesNotExist();
        }
        Files.write(list, whole); // the whole list: the missing partition is named
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "tenant-b")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'tenant-b' was created in this store");
    }

    @Test
    void readReturnsTheNamesAndSkipsCommentsAndBlankLines() throws IOException {
        Files.writeString(dir.resolve("PARTITIONS"), "# c\n\n  t1  \nt-2\r\n");
        assertThat(PartitionRegistry.read(dir)).contains(Set.of("t1", "t-2"));
        assertThat(PartitionRegistry.read(dir.resolve("nowhere"))).isEmpty();
    }
}
