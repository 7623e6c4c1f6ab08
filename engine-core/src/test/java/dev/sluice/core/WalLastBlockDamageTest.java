package dev.sluice.core;

import static dev.sluice.core.StoreOpenSafetyTest.flipBits;
import static dev.sluice.core.StoreOpenSafetyTest.hashes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage in a WAL's last 32-KiB block followed, in that block, by acknowledged SYNC writes: the open must be refused.
 * RocksDB's reader drops the rest of a block at a bad record (point-in-time recovery stops there), and until 2026-11-28
 * {@link WalCheck} did the same, so nothing valid followed the bad record and it passed as a crash's torn tail: the
 * store opened without the SYNC writes after it (a damaged-store probe: one bit flipped 2,000 bytes into a 10-KB WAL,
 * 162 of 200 SYNC writes gone). Real RocksDB through {@link Sluice#open}; the crash state is a copy of the store's
 * directory taken while it is open, after fsynced writes only.
 */
class WalLastBlockDamageTest {
    @TempDir
    Path tmp;

    private static SluiceConfig cfg(Path d) {
        return SluiceConfig.builder(d).env("default").build();
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** 200 SYNC puts; returns the copy of the directory made while the store was open (what a crash leaves). */
    private Path crashedStore() throws IOException {
        Path live = tmp.resolve("live"), crash = tmp.resolve("crash");
        try (SluiceNode node = Sluice.open(cfg(live))) {
            for (int i = 0; i < 200; i++) {
                node.defaultPartition().put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8), WriteMode.SYNC);
            }
            try (Stream<Path> s = Files.walk(live)) {
                for (Path f : (Iterable<Path>) s::iterator) {
                    Path t = crash.resolve(live.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(t);
                    } else if (!f.getFileName().toString().equals("SLUICE.lock")) {
                        Files.copy(f, t);
                    }
                }
            }
        }
        return crash;
    }

    private static Path wal(Path store) throws IOException {
        try (Stream<Path> s = Files.list(store.resolve("partitions/default"))) {
            return s.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }

    @Test
    void aFlippedBitFollowedBySyncWritesInTheLastBlockIsRefusedAndNothingChanges() throws IOException {
        Path crash = crashedStore();
        Path wal = wal(crash);
        assertThat(Files.size(wal)).as("one partial block").isBetween(4_000L, 32L * 1024 - 1);
        flipBits(wal, 2000, 0x01);
        Map<String, String> before = hashes(crash);
        assertThatThrownBy(() -> Sluice.open(cfg(crash)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(wal.getFileName() + " is corrupted at offset")
                .hasMessageContaining("acknowledged SYNC write");
        assertThat(hashes(crash)).as("a refused open changes nothing").isEqualTo(before);
    }

    @Test
    void theSameStoreWithoutDamageOpensWithEveryWrite() throws IOException {
        Path crash = crashedStore();
        try (SluiceNode node = Sluice.open(cfg(crash))) {
            for (int i = 0; i < 200; i++) {
                assertThat(node.defaultPartition().get(key(i))).as("key%d", i).isNotNull();
            }
        }
    }

    /**
     * A WAL whose memtable was flushed is skipped by RocksDB at open (numbered below the MANIFEST's log number; a crash
     * between the flush's MANIFEST edit and the WAL's unlinking leaves it). Damage in it cannot lose anything, and
     * until 2026-11-28 WalCheck read it anyway and refused the store for good. The same damaged file still live is
     * refused (the test above).
     */
    @Test
    void damageInAWalRocksDbNoLongerReplaysDoesNotRefuseTheStore() throws IOException {
        Path store = tmp.resolve("flushed");
        Path savedWal;
        byte[] walBytes;
        try (SluiceNode node = Sluice.open(cfg(store))) {
            for (int i = 0; i < 200; i++) {
                node.defaultPartition().put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8), WriteMode.SYNC);
            }
            savedWal = wal(store);
            walBytes = Files.readAllBytes(savedWal);
            node.defaultPartition().flush(); // the WAL's writes now live in an SST; RocksDB unlinks the WAL
        }
        assertThat(savedWal).as("unlinked after the flush").doesNotExist();
        Files.write(savedWal, walBytes); // what a crash before the unlink leaves
        assertThat(ManifestEdits.liveWalFloor(savedWal.getParent()))
                .as("the MANIFEST's log number is above the flushed WAL's")
                .isGreaterThan(WalCheck.walNumber(savedWal));
        flipBits(savedWal, 2000, 0x01);
        try (SluiceNode node = Sluice.open(cfg(store))) {
            for (int i = 0; i < 200; i++) {
                assertThat(node.defaultPartition().get(key(i)))
                        .as("key%d", i)
                        .isEqualTo(("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
