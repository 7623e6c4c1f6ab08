package dev.sluice.core;

import static dev.sluice.core.StoreOpenSafetyTest.hashes;
import static dev.sluice.core.StoreOpenSafetyTest.zeroPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Two live WALs, as a crash leaves them when a memtable was switched and its flush had not run: damage in the older
 * one must not silently drop the acknowledged SYNC writes of the newer one. With point-in-time recovery RocksDB stops
 * at the bad record and drops every later WAL that does not continue the sequence numbers; {@link WalCheck} judged each
 * WAL alone until 2026-11-27, and such a store opened without the newer WAL's SYNC writes.
 *
 * <p>The WALs are made with plain rocksdbjni on the partition's directory (background work paused, so the switched
 * memtable stays unflushed and its WAL live); SYNC writes carry {@link WalCheck#SYNC_MARK} as Sluice's do.
 */
class MultiWalRecoveryTest {
    @TempDir
    Path dir;

    static {
        RocksDB.loadLibrary();
    }

    private static SluiceConfig cfg(Path d) {
        return SluiceConfig.builder(d).env("default").build();
    }

    private static byte[] key(String prefix, int i) {
        return String.format("%s%04d", prefix, i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[100];
        java.util.Arrays.fill(v, (byte) ('a' + i % 26)); // a zeroed page must change bytes
        return v;
    }

    /**
     * A store whose default partition has two live WALs: the older with {@code older} ASYNC puts ("a…"), the newer with
     * 50 puts ("s…") written {@code newerSync} or not. Returns the WALs, oldest first. No clean-close record: a crash.
     */
    private List<Path> twoLiveWals(int older, boolean newerSync) throws IOException, RocksDBException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put("first".getBytes(StandardCharsets.UTF_8), value(0), WriteMode.SYNC);
        }
        Path p = dir.resolve("partitions/default");
        try (Options o = StoreCheck.newOptions().setCreateIfMissing(false); // WALs tracked in the MANIFEST, as Sluice
                RocksDB db = RocksDB.open(o, p.toString());
                WriteOptions async = new WriteOptions();
                WriteOptions sync = new WriteOptions().setSync(true);
                FlushOptions noWait = new FlushOptions().setWaitForFlush(false)) {
            db.pauseBackgroundWork();
            for (int i = 0; i < older; i++) {
                db.put(async, key("a", i), value(i));
            }
            db.flush(noWait); // switches the memtable (and the WAL); the flush itself cannot run
            for (int i = 0; i < 50; i++) {
                try (WriteBatch b = new WriteBatch()) {
                    if (newerSync) {
                        b.putLogData(WalCheck.SYNC_MARK);
                    }
                    b.put(key("s", i), value(i));
                    db.write(newerSync ? sync : async, b);
                }
            }
        }
        Files.deleteIfExists(p.resolve(CleanClose.FILE)); // a crash leaves none
        try (Stream<Path> s = Files.list(p)) {
            List<Path> wals = s.filter(f -> f.toString().endsWith(".log"))
                    .filter(f -> f.toFile().length() > 0)
                    .sorted()
                    .toList();
            assertThat(wals.size()).as("WALs: %s", wals).isGreaterThanOrEqualTo(2);
            return wals.subList(wals.size() - 2, wals.size()); // the two the raw writes went to
        }
    }

    @Test
    void twoSoundLiveWalsOpenWithEveryWrite() throws Exception {
        twoLiveWals(1000, true);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 1000; i++) {
                assertThat(n.defaultPartition().get(key("a", i))).as("a%d", i).isEqualTo(value(i));
            }
            for (int i = 0; i < 50; i++) {
                assertThat(n.defaultPartition().get(key("s", i))).as("s%d", i).isEqualTo(value(i));
            }
        }
    }

    /**
     * A zeroed page in the older WAL with only ASYNC records after it in that file (alone, the shape of a power cut),
     * but SYNC writes in the newer WAL: refused, naming both files; nothing changed.
     */
    @Test
    void aHoleInTheOlderWalBeforeSyncWritesInTheNewerIsRefused() throws Exception {
        List<Path> wals = twoLiveWals(1000, true);
        assertThat(Files.size(wals.get(0))).isGreaterThan(3 * 32 * 1024);
        zeroPage(wals.get(0), 8192);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(wals.get(0).getFileName() + " is corrupted at offset")
                .hasMessageContaining("the later " + wals.get(1).getFileName())
                .hasMessageContaining("acknowledged SYNC write");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /** The older WAL cut inside its last record (a torn tail) before SYNC writes in the newer WAL: refused, unchanged. */
    @Test
    void aTornTailOfTheOlderWalBeforeSyncWritesInTheNewerIsRefused() throws Exception {
        List<Path> wals = twoLiveWals(1000, true);
        try (RandomAccessFile raf = new RandomAccessFile(wals.get(0).toFile(), "rw")) {
            raf.setLength(raf.length() - 50);
        }
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir))).isInstanceOf(StoreCorruptedException.class);
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /** WALs are taken in RocksDB's order, by number: a name sort puts 1000000.log before 999999.log. */
    @Test
    void walsAreOrderedByNumber() {
        List<Path> sorted = Stream.of("1000000.log", "999999.log", "000012.log", "x.log")
                .map(Path::of)
                .sorted(WalCheck.BY_NUMBER)
                .toList();
        assertThat(sorted)
                .extracting(Path::toString)
                .containsExactly("000012.log", "999999.log", "1000000.log", "x.log");
    }

    /** The same hole with only ASYNC writes in the newer WAL: a power cut's loss of unsynced writes; it opens. */
    @Test
    void aHoleInTheOlderWalBeforeOnlyAsyncWritesOpensWithThePrefix() throws Exception {
        List<Path> wals = twoLiveWals(1000, false);
        zeroPage(wals.get(0), 8192);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get("first".getBytes(StandardCharsets.UTF_8)))
                    .isEqualTo(value(0));
            assertThat(n.defaultPartition().get(key("a", 0))).isEqualTo(value(0));
            assertThat(n.defaultPartition().get(key("a", 999)))
                    .as("after the hole")
                    .isNull();
            // RocksDB dropped the newer WAL whole (its sequence numbers do not continue the prefix): what WalCheck
            // assumes when it refuses the SYNC case above
            assertThat(n.defaultPartition().get(key("s", 0))).as("newer WAL").isNull();
        }
    }
}
