package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * Opening damaged, interrupted and locked stores: a refused open changes no byte of the store (info LOGs included) and
 * creates nothing; an interrupted partition creation is recovered.
 */
class StoreOpenSafetyTest {
    @TempDir
    Path dir;

    private static SluiceConfig cfg(Path d, String... partitions) {
        return SluiceConfig.builder(d)
                .env("default")
                .partitions(partitions.length == 0 ? new String[] {"default"} : partitions)
                .build();
    }

    private static byte[] key(int i) {
        return String.format("k%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> ssts(Path pdir) throws IOException {
        try (Stream<Path> s = Files.list(pdir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".sst"))
                    .sorted()
                    .toList();
        }
    }

    // ---- item 9: a damaged MANIFEST ----

    @Test
    void aManifestTruncatedToHalfIsRefusedBeforeRocksDbPurgesTheSstItForgot() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 1000; i++) {
                n.defaultPartition().put(key(i), new byte[100], WriteMode.SYNC);
            }
            n.defaultPartition().flush();
        }
        Path pdir = dir.resolve("partitions/default");
        List<String> sstsBefore = ssts(pdir);
        assertThat(sstsBefore).hasSize(1);
        Path manifest = pdir.resolve(Files.readString(pdir.resolve("CURRENT")).trim());
        try (RandomAccessFile raf = new RandomAccessFile(manifest.toFile(), "rw")) {
            raf.setLength(raf.length() / 2);
        }
        Map<String, String> before = hashes(dir);
        SluiceNode opened = null;
        try {
            opened = Sluice.open(cfg(dir));
        } catch (StoreCorruptedException e) {
            assertThat(e)
                    .hasMessageContaining("partition 'default'")
                    .hasMessageContaining(sstsBefore.get(0))
                    .hasMessageContaining("MANIFEST");
        }
        if (opened != null) {
            int present = 0;
            for (int i = 0; i < 1000; i++) {
                present += opened.defaultPartition().get(key(i)) != null ? 1 : 0;
            }
            opened.close();
            throw new AssertionError("the damaged store opened: " + present
                    + " of 1000 acknowledged rows readable, SSTs " + sstsBefore + " before, " + ssts(pdir) + " after");
        }
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * The live WAL holding acknowledged SYNC writes is deleted. RocksDB 9.10 opens without them (measured: 100 of 200
     * rows) — track_and_verify_wals_in_manifest tracks only closed WALs — so Sluice checks the MANIFEST's log number.
     */
    @Test
    void aDeletedWalHoldingAcknowledgedSyncWritesIsRefused() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                n.defaultPartition().put(key(i), new byte[100], WriteMode.SYNC);
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 100; i < 200; i++) {
                n.defaultPartition().put(key(i), new byte[100], WriteMode.SYNC);
            }
        }
        Path pdir = dir.resolve("partitions/default");
        Path wal;
        try (Stream<Path> s = Files.list(pdir)) {
            wal = s.filter(p -> p.toString().endsWith(".log"))
                    .filter(p -> p.toFile().length() > 0)
                    .max(Path::compareTo)
                    .orElseThrow();
        }
        Files.delete(wal);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'default'")
                .hasMessageContaining("missing its write-ahead log");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    private static Path newestWal(Path pdir) throws IOException {
        try (Stream<Path> s = Files.list(pdir)) {
            return s.filter(p -> p.toString().endsWith(".log"))
                    .filter(p -> p.toFile().length() > 0)
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    /**
     * The live WAL is cut short after a clean close. A cut anywhere looks like a crash's torn tail to RocksDB 9.10 and to
     * {@link WalCheck}, and the store opened without the synced writes after the cut (measured before {@link
     * CleanClose}: 100 of 200 rows, no error); now the recorded sequence number refuses it, and deleting the record accepts the
     * loss.
     */
    @Test
    void aWalCutShortAfterACleanCloseIsRefusedAndDeletingTheRecordAcceptsTheLoss() throws IOException {
        Path pdir = dir.resolve("partitions/default");
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(pdir.resolve(CleanClose.FILE)).as("no record while open").doesNotExist();
            for (int i = 0; i < 200; i++) {
                n.defaultPartition().put(key(i), new byte[100], WriteMode.DEFAULT);
            }
        }
        assertThat(CleanClose.read("default", pdir)).hasValue(200);
        Path wal = newestWal(pdir);
        try (RandomAccessFile raf = new RandomAccessFile(wal.toFile(), "rw")) {
            raf.setLength(raf.length() / 2);
        }
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'default'")
                .hasMessageContaining("lost acknowledged writes")
                .hasMessageContaining("up to sequence number 200 synced")
                .hasMessageContaining(CleanClose.FILE);
        assertThat(hashes(dir)).as("the refused open changed nothing").isEqualTo(before);
        Files.delete(pdir.resolve(CleanClose.FILE));
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            int present = 0;
            for (int i = 0; i < 200; i++) {
                present += n.defaultPartition().get(key(i)) != null ? 1 : 0;
            }
            assertThat(present).as("rows left by the cut").isBetween(1, 199);
            n.defaultPartition().put(key(500), "after".getBytes(), WriteMode.SYNC);
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(500))).isEqualTo("after".getBytes());
        }
    }

    /**
     * The record lives from a clean close to the next open, and a record older than the partition's state (a crash after
     * an open that could not remove it) never refuses it: sequence numbers only grow.
     */
    @Test
    void theRecordIsRemovedAtOpenAndAnOlderOneNeverRefuses() throws IOException {
        Path pdir = dir.resolve("partitions/default");
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 10; i++) {
                n.defaultPartition().put(key(i), "v".getBytes(), WriteMode.SYNC);
            }
        }
        assertThat(CleanClose.read("default", pdir)).hasValue(10);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(pdir.resolve(CleanClose.FILE)).as("removed by the open").doesNotExist();
            n.defaultPartition().put(key(10), "v".getBytes(), WriteMode.SYNC);
        }
        assertThat(CleanClose.read("default", pdir)).hasValue(11);
        CleanClose.record(pdir, 5); // older than what the partition holds
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(10))).isEqualTo("v".getBytes());
        }
    }

    @Test
    void aDamagedCleanCloseRecordIsRefusedNamingIt() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
        Path record = dir.resolve("partitions/default").resolve(CleanClose.FILE);
        for (byte[] damage : List.of(
                "sequence twelve\n".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xff, (byte) 0xfe, 0},
                "# only a comment\n".getBytes(StandardCharsets.UTF_8),
                "sequence 99999999999999999999\n".getBytes(StandardCharsets.UTF_8),
                new byte[0],
                Arrays.copyOf(Files.readAllBytes(record), Files.readAllBytes(record).length - 3))) { // cut short
            Files.write(record, damage);
            Map<String, String> before = hashes(dir);
            assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                    .isInstanceOf(StoreCorruptedException.class)
                    .hasMessageContaining("partition 'default'")
                    .hasMessageContaining(record.toString())
                    .hasMessageContaining("is damaged");
            assertThat(hashes(dir)).isEqualTo(before);
        }
        Files.delete(record);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(1))).isEqualTo("v".getBytes());
        }
    }

    @Test
    void openCloseCyclesWithoutWritesKeepOpening() {
        for (int i = 0; i < 4; i++) {
            try (SluiceNode n = Sluice.open(cfg(dir))) {
                if (i == 1) {
                    n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
                    n.defaultPartition().flush();
                }
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(1))).isEqualTo("v".getBytes());
        }
    }

    @Test
    void aCleanlyFlushedAndCompactedStoreStillOpensWithEveryRow() {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 500; i++) {
                    n.defaultPartition().put(key(i), ("v" + round).getBytes(), WriteMode.SYNC);
                }
                n.defaultPartition().flush();
            }
            n.defaultPartition().delete(key(7));
        }
        for (int reopen = 0; reopen < 2; reopen++) {
            try (SluiceNode n = Sluice.open(cfg(dir))) {
                for (int i = 0; i < 500; i++) {
                    assertThat(n.defaultPartition().get(key(i))).isEqualTo(i == 7 ? null : "v2".getBytes());
                }
            }
        }
    }

    /**
     * A table file cut short by a kill during a flush or a compaction (empty, a prefix of a table, a table without its
     * last bytes): not a complete table, so never committed; the open goes ahead and keeps every row. Until 2026-11-26
     * it was refused as unreadable, and the store never opened again.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 4096, -100})
    void anIncompleteTableLeftByAKillDuringAFlushOrCompactionOpens(int cut) throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 500; i++) {
                n.defaultPartition().put(key(i), new byte[200], WriteMode.SYNC);
            }
            n.defaultPartition().flush();
            for (int i = 500; i < 600; i++) {
                n.defaultPartition().put(key(i), new byte[200], WriteMode.SYNC); // in the WAL only
            }
        }
        Path pdir = dir.resolve("partitions/default");
        byte[] live = Files.readAllBytes(pdir.resolve(ssts(pdir).get(0)));
        int length = cut >= 0 ? Math.min(cut, live.length) : live.length + cut;
        Files.write(pdir.resolve("000999.sst"), java.util.Arrays.copyOf(live, length));
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 600; i++) {
                assertThat(n.defaultPartition().get(key(i))).as("row %d", i).hasSize(200);
            }
        }
    }

    /**
     * The output of a flush cut short by a crash: an SST the MANIFEST never listed, whose keys are all still in the WAL.
     * RocksDB deletes it at open; that is right, and the open goes ahead.
     */
    @Test
    void anSstLeftByAnInterruptedFlushWhoseKeysAreInTheWalOpens() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                n.defaultPartition().put(key(i), ("v" + i).getBytes(), WriteMode.SYNC);
            }
        }
        Path orphan = dir.resolve("partitions/default/000099.sst");
        try (Options o = new Options();
                org.rocksdb.EnvOptions eo = new org.rocksdb.EnvOptions();
                org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(eo, o)) {
            w.open(orphan.toString());
            for (int i = 0; i < 100; i++) {
                w.put(key(i), ("v" + i).getBytes());
            }
            w.finish();
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                assertThat(n.defaultPartition().get(key(i))).isEqualTo(("v" + i).getBytes());
            }
        }
    }

    private static void writeSst(Path f, int from, int to) throws Exception {
        try (Options o = new Options();
                org.rocksdb.EnvOptions eo = new org.rocksdb.EnvOptions();
                org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(eo, o)) {
            w.open(f.toString());
            for (int i = from; i < to; i++) {
                w.put(key(i), ("v" + i).getBytes());
            }
            w.finish();
        }
    }

    /**
     * The output of a compaction cut short by a crash holds a key that a newer, flushed delete hides: the key reads as
     * missing, but it is still in the compaction's live input, so the orphan is a crash leftover and the store opens.
     */
    @Test
    void anInterruptedCompactionsOutputWhoseKeyWasDeletedSinceOpens() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                n.defaultPartition().put(key(i), ("v" + i).getBytes(), WriteMode.SYNC);
            }
            n.defaultPartition().flush(); // the live input
            n.defaultPartition().delete(key(5), WriteMode.SYNC);
            n.defaultPartition().flush(); // the delete, in a newer live SST
        }
        writeSst(dir.resolve("partitions/default/000099.sst"), 0, 100);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(5))).isNull();
            assertThat(n.defaultPartition().get(key(6))).isEqualTo("v6".getBytes());
        }
    }

    /** The output of a flush cut short by a crash holds a key whose delete is in the WAL: a crash leftover; opens. */
    @Test
    void anInterruptedFlushsOutputWhoseKeyWasDeletedInTheWalOpens() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                n.defaultPartition().put(key(i), ("v" + i).getBytes(), WriteMode.SYNC);
            }
            n.defaultPartition().delete(key(5), WriteMode.ASYNC);
        }
        writeSst(dir.resolve("partitions/default/000099.sst"), 0, 100);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(5))).isNull();
            assertThat(n.defaultPartition().get(key(99))).isEqualTo("v99".getBytes());
        }
    }

    /**
     * A lost flush of updates: the newest values are only in the orphan; older values of the same keys are still live.
     * Matching keys alone would call it covered and let RocksDB delete the newest values.
     */
    @Test
    void anSstHoldingTheOnlyCopyOfUpdatedValuesIsRefused() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                n.defaultPartition().put(key(i), "old".getBytes(), WriteMode.SYNC);
            }
            n.defaultPartition().flush();
        }
        try (Options o = new Options();
                org.rocksdb.EnvOptions eo = new org.rocksdb.EnvOptions();
                org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(eo, o)) {
            w.open(dir.resolve("partitions/default/000099.sst").toString());
            for (int i = 0; i < 100; i++) {
                w.put(key(i), "newest".getBytes());
            }
            w.finish();
        }
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("000099.sst")
                .hasMessageContaining("100 of its 100 keys");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * Cuts {@code partition}'s MANIFEST just before the record whose edit adds file {@code number}: that edit and every
     * later one lost, as a truncated or torn MANIFEST loses them. MANIFEST records here are small, one per record.
     */
    private static void cutManifestBefore(Path partition, long number) throws IOException {
        cutManifestBefore(partition, e -> e.added().contains(number), "an edit adding " + number);
    }

    private static void cutManifestBefore(
            Path partition, java.util.function.Predicate<ManifestEdits.Edit> edit, String what) throws IOException {
        String current = Files.readString(partition.resolve("CURRENT")).strip();
        Path manifest = partition.resolve(current);
        byte[] b = Files.readAllBytes(manifest);
        int pos = 0;
        while (pos + 7 <= b.length) {
            int len = (b[pos + 4] & 0xFF) | (b[pos + 5] & 0xFF) << 8;
            ManifestEdits.Edit e = ManifestEdits.decode(java.util.Arrays.copyOfRange(b, pos + 7, pos + 7 + len));
            if (e != null && edit.test(e)) {
                try (java.nio.channels.FileChannel ch =
                        java.nio.channels.FileChannel.open(manifest, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.truncate(pos);
                }
                return;
            }
            pos += 7 + len;
        }
        throw new AssertionError("no " + what + " in " + manifest);
    }

    private static long newestSst(Path partition) throws IOException {
        return ssts(partition).stream()
                .mapToLong(n -> Long.parseLong(n.replace(".sst", "")))
                .max()
                .orElseThrow();
    }

    /**
     * Damaged-store probe (2026-11-28): a lost flush of SYNC deletes. The orphan holds tombstones only, which an SST
     * iterator does not show, so the value rule saw an empty file; the store opened with the 500 deleted keys back and
     * RocksDB deleted the orphan. SYNC writes after the flush and a clean close did not help: the recovered sequence
     * still reached the recorded one.
     */
    @Test
    void aLostFlushOfDeletesIsRefusedNotUndone() throws Exception {
        Path part = dir.resolve("partitions/default");
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            for (int i = 0; i < 1000; i++) {
                p.put(key(i), ("v" + i).getBytes(), WriteMode.SYNC);
            }
            p.flush();
            for (int i = 0; i < 500; i++) {
                p.delete(key(i), WriteMode.SYNC);
            }
            p.flush();
            for (int i = 1000; i < 1010; i++) {
                p.put(key(i), "later".getBytes(), WriteMode.SYNC);
            }
        }
        assertTheNewestFlushLostIsRefused(part);
    }

    /** Cuts the MANIFEST before the newest SST's edit: the open is refused naming it, and nothing changes. */
    private void assertTheNewestFlushLostIsRefused(Path part) throws IOException {
        long lost = newestSst(part);
        cutManifestBefore(part, lost);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(String.format("%06d.sst", lost))
                .hasMessageContaining("the MANIFEST lost a committed flush");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * Damaged-store probe (2026-11-28): keys written on, off, on, a flush after each; the last flush's edit lost. Its
     * values equal the first flush's, still live, so the value rule counted them as covered, and the keys read "off".
     */
    @Test
    void aLostFlushWhoseValuesEqualAnOverwrittenVersionIsRefused() throws Exception {
        Path part = dir.resolve("partitions/default");
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            for (String v : new String[] {"on", "off", "on"}) {
                for (int i = 0; i < 100; i++) {
                    p.put(key(i), v.getBytes(), WriteMode.SYNC);
                }
                p.flush();
            }
        }
        assertTheNewestFlushLostIsRefused(part);
    }

    /**
     * The crash states the sequence rule must accept, with RocksDB's own files (real sequence numbers): a flush whose
     * edit never reached the MANIFEST (its WAL still on disk), and a compaction whose edit never did (its inputs still
     * on disk). Made by cutting the MANIFEST before the edit and putting back what RocksDB deleted after it.
     */
    @Test
    void realFlushAndCompactionLeftoversWithTheirSourcesOnDiskOpen() throws Exception {
        Path part = dir.resolve("partitions/default");
        Path aside = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-aside"));
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            for (int i = 0; i < 100; i++) {
                p.put(key(i), ("v" + i).getBytes(), WriteMode.SYNC);
            }
            try (Stream<Path> s = Files.list(part)) {
                for (Path wal : s.filter(f -> f.toString().endsWith(".log")).toList()) {
                    Files.copy(wal, aside.resolve(wal.getFileName()));
                }
            }
            p.flush();
        }
        cutManifestBefore(part, newestSst(part));
        try (Stream<Path> s = Files.list(aside)) {
            for (Path wal : s.toList()) {
                Files.copy(wal, part.resolve(wal.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.delete(wal);
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 100; i++) {
                assertThat(n.defaultPartition().get(key(i))).isEqualTo(("v" + i).getBytes());
            }
        }
        // a compaction of flushed, overlapping tables (RocksDB's L0 trigger: 4), one key deleted in them; no write
        // after it, so that its edit is the last one
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            java.util.function.BooleanSupplier inputsUnlinked = () -> {
                try (Stream<Path> s = Files.list(aside)) {
                    return s.anyMatch(f -> !Files.exists(part.resolve(f.getFileName())));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            for (int round = 0; round < 8 && !inputsUnlinked.getAsBoolean(); round++) {
                for (int i = 0; i < 200; i += 2) { // overlapping tables: merged, not moved to L1 as they are
                    p.put(key(i + round % 2), ("v" + (i + round % 2)).getBytes(), WriteMode.SYNC);
                }
                p.delete(key(5), WriteMode.SYNC); // deleted in every table that writes it
                p.flush();
                for (String sst : ssts(part)) {
                    if (!Files.exists(aside.resolve(sst))) {
                        Files.copy(part.resolve(sst), aside.resolve(sst));
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (!inputsUnlinked.getAsBoolean() && System.nanoTime() < deadline) {
                    Thread.sleep(20); // a compaction commits and RocksDB unlinks its inputs
                }
            }
            assertThat(inputsUnlinked.getAsBoolean()).as("compacted").isTrue();
        }
        cutManifestBefore(part, e -> !e.deleted().isEmpty() && !e.added().isEmpty(), "compaction's edit");
        try (Stream<Path> s = Files.list(aside)) {
            for (Path sst : s.toList()) {
                if (!Files.exists(part.resolve(sst.getFileName()))) {
                    Files.copy(sst, part.resolve(sst.getFileName()));
                }
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(5))).isNull();
            assertThat(n.defaultPartition().get(key(6))).isEqualTo("v6".getBytes());
            assertThat(n.defaultPartition().get(key(199))).isEqualTo("v199".getBytes());
        }
    }

    @Test
    void anSstTheManifestDoesNotKnowWhoseKeysAreNowhereElseIsRefused() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
        Path orphan = dir.resolve("partitions/default/000099.sst");
        try (Options o = new Options();
                org.rocksdb.EnvOptions eo = new org.rocksdb.EnvOptions();
                org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(eo, o)) {
            w.open(orphan.toString());
            w.put(key(1), "v".getBytes());
            w.put(key(2), "only here".getBytes());
            w.finish();
        }
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("000099.sst")
                .hasMessageContaining("1 of its 2 keys (first: k0002) have a value in no live SST and no WAL");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * A {@code kill -9} after a compaction's edit reached the MANIFEST and before RocksDB unlinked its inputs leaves an
     * input on disk that the recovered version does not list, holding a value no live file holds any more (it was
     * overwritten since). Until 2026-11-28 that failed the orphan rule and the store never opened again (a crash-loop
     * probe: 1 kill in about 100). The MANIFEST records the input's deletion, so the file is known to be obsolete.
     * The crash state is made by putting a copy of the input back after the compaction.
     */
    @Test
    void anObsoleteCompactionInputLeftByACrashOpensWithTheNewestValues() throws Exception {
        Path part = dir.resolve("partitions/default");
        Path saved = dir.resolveSibling(dir.getFileName() + "-saved.sst");
        String input;
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            p.put(key(1), "old".getBytes(), WriteMode.SYNC);
            p.flush();
            try (Stream<Path> s = Files.list(part)) {
                Path sst =
                        s.filter(f -> f.toString().endsWith(".sst")).findFirst().orElseThrow();
                input = sst.getFileName().toString();
                Files.copy(sst, saved);
            }
            for (int i = 0; i < 4; i++) { // L0 reaches RocksDB's compaction trigger (4): its files are merged
                p.put(key(1), ("new" + i).getBytes(), WriteMode.SYNC);
                p.put(key(100 + i), "x".getBytes(), WriteMode.SYNC);
                p.flush();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Files.exists(part.resolve(input)) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(part.resolve(input)).as("compacted and unlinked").doesNotExist();
        }
        assertThat(ManifestEdits.deletedFiles(part)).contains(Long.parseLong(input.replace(".sst", "")));
        Files.copy(saved, part.resolve(input)); // the crash state
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(1))).isEqualTo("new3".getBytes());
            assertThat(n.defaultPartition().get(key(103))).isEqualTo("x".getBytes());
        }
        assertThat(part.resolve(input))
                .as("RocksDB deleted the obsolete file at open")
                .doesNotExist();
    }

    @Test
    void aRefusedOpenOnAFreshPathCreatesNothing() {
        Path fresh = dir.resolve("new-store");
        // engine-ratelimit is not on engine-core's test classpath: env = priority cannot run here
        assertThatThrownBy(() ->
                        Sluice.open(SluiceConfig.builder(fresh).env("priority").build()))
                .isInstanceOf(ConfigException.class);
        assertThat(fresh).doesNotExist();
    }

    // ---- item 10: a refused open is atomic across partitions ----

    /** Partition a holds unflushed WAL data (an open replays and rewrites it); b holds data too. */
    private void twoPartitionStore() {
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            for (int i = 0; i < 200; i++) {
                n.partition("a").put(key(i), new byte[50], WriteMode.SYNC);
                n.partition("b").put(key(i), new byte[50], WriteMode.SYNC);
            }
            n.partition("b").flush();
        }
    }

    @Test
    void aDamagedSecondPartitionLeavesTheFirstUntouched() throws IOException {
        twoPartitionStore();
        Files.delete(dir.resolve("partitions/b/CURRENT"));
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'b'");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * A second partition RocksDB cannot open for writing (here its LOCK is a directory) was found only in phase 2 until
     * 2026-11-28, after the first had been opened for writing: the refused open had flushed a's WAL and rolled its
     * MANIFEST, and blamed "another node or process" for the lock. Now phase 1 refuses it and nothing changes.
     */
    @Test
    void aSecondPartitionWhoseLockIsADirectoryIsRefusedBeforeTheFirstIsOpened() throws IOException {
        twoPartitionStore();
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            n.partition("a").put(key(7000), new byte[10], WriteMode.SYNC); // a live WAL in a: an open would flush it
        }
        Files.deleteIfExists(dir.resolve("partitions/b/LOCK"));
        Files.createDirectory(dir.resolve("partitions/b/LOCK"));
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .hasMessageContaining("partition 'b'")
                .hasMessageContaining("LOCK is not a regular file")
                .hasMessageNotContaining("already open");
        assertThat(hashes(dir)).isEqualTo(before);
        Files.delete(dir.resolve("partitions/b/LOCK"));
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("a").get(key(7000))).isNotNull();
            assertThat(n.partition("b").get(key(199))).isNotNull();
        }
    }

    @Test
    void aPartitionInADirectoryThatIsNotWritableIsRefusedNamingIt() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root writes to directories without write permission");
        twoPartitionStore();
        Path b = dir.resolve("partitions/b");
        Files.setPosixFilePermissions(b, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assertOpeningABIsRefusedUnchanged("is not writable");
        } finally {
            Files.setPosixFilePermissions(b, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /** Opening partitions a and b is refused naming b and {@code fragments}, and no byte of the store changes. */
    private void assertOpeningABIsRefusedUnchanged(String... fragments) throws IOException {
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .hasMessageContaining("partition 'b'")
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * A damaged-store probe (2026-11-29): partition b's CURRENT made immutable ({@code chattr +i}); the open failed in
     * b only after a had been opened and rewritten (WAL flushed, MANIFEST rolled). Root only: only root can set the
     * flag, and for root a file it cannot write is exactly an immutable one (or a read-only mount).
     */
    @Test
    void anImmutableFileInAPartitionIsRefusedBeforeTheFirstIsOpened() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                "root".equals(System.getProperty("user.name")), "only root sets and is bound by chattr +i this way");
        twoPartitionStore();
        Path current = dir.resolve("partitions/b/CURRENT");
        Process chattr = new ProcessBuilder("chattr", "+i", current.toString())
                .redirectErrorStream(true)
                .start();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                chattr.waitFor() == 0,
                "chattr +i works on this file system: "
                        + new String(chattr.getInputStream().readAllBytes()));
        try {
            assertOpeningABIsRefusedUnchanged("CURRENT cannot be changed", "Sluice opened nothing");
        } finally {
            new ProcessBuilder("chattr", "-i", current.toString()).start().waitFor();
        }
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("a").get(key(199))).isNotNull();
            assertThat(n.partition("b").get(key(199))).isNotNull();
        }
    }

    /**
     * A probe (2026-11-29): two nodes creating the same new store at once. The marker was written before the lock was
     * taken, so the loser got "NoSuchFileException SLUICE.tmp" (120 of 150 pairs) or a false "not a Sluice store"
     * (2 of 150) instead of "already open".
     */
    @Test
    void twoNodesCreatingTheSameStoreAtOnceOneOpensTheOtherIsToldItIsOpen() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 40; round++) {
                Path fresh = dir.resolve("fresh-" + round);
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                java.util.List<java.util.concurrent.Future<Object>> both = new java.util.ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    both.add(pool.submit(() -> {
                        start.await();
                        try {
                            return Sluice.open(cfg(fresh, "a"));
                        } catch (RuntimeException e) {
                            return e;
                        }
                    }));
                }
                java.util.List<Object> results = new java.util.ArrayList<>();
                for (var f : both) {
                    results.add(f.get());
                }
                java.util.List<SluiceNode> opened = new java.util.ArrayList<>();
                java.util.List<RuntimeException> refused = new java.util.ArrayList<>();
                for (Object r : results) {
                    if (r instanceof SluiceNode n) {
                        opened.add(n);
                    } else {
                        refused.add((RuntimeException) r);
                    }
                }
                try {
                    assertThat(opened).as("round %d", round).hasSize(1);
                    assertThat(refused.get(0))
                            .as("round %d", round)
                            .isExactlyInstanceOf(SluiceException.class)
                            .hasMessageContaining("is already open");
                    opened.get(0).partition("a").put(key(1), new byte[] {1}, WriteMode.SYNC);
                } finally {
                    opened.forEach(SluiceNode::close);
                }
                try (SluiceNode again = Sluice.open(cfg(fresh, "a"))) {
                    assertThat(again.partition("a").get(key(1))).containsExactly(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A partition directory that is a dangling symbolic link is refused before any partition is opened. */
    @Test
    void aPartitionThatIsADanglingSymbolicLinkIsRefusedBeforeTheFirstIsOpened() throws IOException {
        twoPartitionStore();
        // a new partition c (a listed partition that went missing is refused by the partition list first)
        Files.createSymbolicLink(dir.resolve("partitions/c"), dir.resolveSibling("no-such-volume"));
        Map<String, String> before = hashes(dir.resolve("partitions/a"));
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b", "c")))
                .hasMessageContaining("partition 'c'")
                .hasMessageContaining("symbolic link to nothing");
        assertThat(hashes(dir.resolve("partitions/a"))).isEqualTo(before);
    }

    /**
     * Damaged-store probe (2026-11-28): partition b's directory replaced by a link to a's. Both opened, each RocksDB
     * deleted the other's files as obsolete, and the next open found a's SSTs gone.
     */
    @Test
    void twoPartitionsThatAreOneDirectoryAreRefusedAndNothingIsTouched() throws IOException {
        twoPartitionStore();
        Path b = dir.resolve("partitions/b");
        try (Stream<Path> s = Files.walk(b)) {
            s.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }
        Files.createSymbolicLink(b, dir.resolve("partitions/a"));
        Map<String, String> before = hashes(dir.resolve("partitions/a"));
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("partitions 'a' and 'b' are the same directory")
                .hasMessageContaining("opened nothing");
        assertThat(hashes(dir.resolve("partitions/a"))).isEqualTo(before);
        Files.delete(b);
        try (SluiceNode n = Sluice.open(cfg(dir, "a"))) {
            assertThat(n.partition("a").get(key(1))).isNotNull();
        }
    }

    /** A *.log that is not a regular file is named, and a FIFO is never opened (reading it would block the open). */
    @Test
    void aWalNameThatIsNotARegularFileIsRefusedNamingIt() throws Exception {
        twoPartitionStore();
        Path b = dir.resolve("partitions/b");
        Files.createDirectory(b.resolve("000990.log"));
        Process mk = new ProcessBuilder("mkfifo", b.resolve("000991.log").toString()).start();
        assertThat(mk.waitFor()).isZero();
        Map<String, String> before = hashes(dir.resolve("partitions/a"));
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .isInstanceOf(SluiceException.class)
                .isNotInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'b'")
                .hasMessageContaining("[000990.log, 000991.log] named like a write-ahead log but not a regular file");
        assertThat(hashes(dir.resolve("partitions/a"))).isEqualTo(before);
    }

    @Test
    void aSecondPartitionLockedByAnotherNodeInThisJvmLeavesTheFirstUntouched() throws IOException {
        twoPartitionStore();
        try (SluiceNode holder = Sluice.open(cfg(dir, "b"))) {
            Map<String, String> before = hashes(dir.resolve("partitions/a"));
            assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b"))).hasMessageContaining("already open");
            assertThat(hashes(dir.resolve("partitions/a"))).isEqualTo(before);
            assertThat(holder.partition("b").get(key(1))).isNotNull(); // the holder keeps working
        }
    }

    /** Holds a RocksDB open on {@code args[0]} (its LOCK) until stdin closes. */
    public static final class LockHolder {
        public static void main(String[] args) throws Exception {
            RocksDB.loadLibrary();
            try (Options o = new Options();
                    RocksDB db = RocksDB.open(o, args[0])) {
                System.out.println("LOCKED");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // wait for the parent to close our stdin
                }
            }
        }
    }

    @Test
    void aSecondPartitionLockedByAnotherProcessLeavesTheFirstUntouched() throws Exception {
        twoPartitionStore();
        Process child = ChildJvm.of(
                        LockHolder.class, "128m", dir.resolve("partitions/b").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(r.readLine()).isEqualTo("LOCKED");
            Map<String, String> before = hashes(dir.resolve("partitions/a"));
            assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                    .hasMessageContaining("partition 'b'")
                    .hasMessageContaining("already open");
            assertThat(hashes(dir.resolve("partitions/a"))).isEqualTo(before);
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) { // and once the other process is gone, it opens
            assertThat(n.partition("a").get(key(199))).isNotNull();
            assertThat(n.partition("b").get(key(199))).isNotNull();
        }
    }

    @Test
    void aSecondNodeOnTheSameStoreIsRefusedBeforeTouchingAnything() throws IOException {
        twoPartitionStore();
        try (SluiceNode holder = Sluice.open(cfg(dir, "a", "b"))) {
            holder.partition("a").put(key(5000), new byte[1], WriteMode.SYNC);
            assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("already open");
            assertThat(holder.partition("a").get(key(5000))).isNotNull();
        }
    }

    /** Tries to lock {@code args[0]} and prints HELD or FREE. */
    public static final class LockProbe {
        public static void main(String[] args) throws Exception {
            try (java.nio.channels.FileChannel ch =
                    java.nio.channels.FileChannel.open(Path.of(args[0]), java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.channels.FileLock l = ch.tryLock();
                System.out.println(l == null ? "HELD" : "FREE");
            }
        }
    }

    private static String probe(Path file) throws Exception {
        Process p = ChildJvm.of(LockProbe.class, "128m", file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line = r.readLine();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return line;
        }
    }

    /** A refused second node in this JVM must not release the first node's lock for other processes. */
    @Test
    void aRefusedSecondNodeInThisJvmKeepsTheStoreLockedForOtherProcesses() throws Exception {
        try (SluiceNode holder = Sluice.open(cfg(dir))) {
            assertThat(probe(dir.resolve("SLUICE.lock"))).isEqualTo("HELD");
            assertThatThrownBy(() -> Sluice.open(cfg(dir))).hasMessageContaining("already open");
            assertThat(probe(dir.resolve("SLUICE.lock"))).isEqualTo("HELD");
        }
        assertThat(probe(dir.resolve("SLUICE.lock"))).isEqualTo("FREE");
    }

    @Test
    void aNewPartitionIsNotCreatedWhenAnotherPartitionIsRefused() throws IOException {
        twoPartitionStore();
        Files.delete(dir.resolve("partitions/b/CURRENT"));
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "c", "b"))).isInstanceOf(StoreCorruptedException.class);
        assertThat(hashes(dir)).isEqualTo(before);
        assertThat(dir.resolve("partitions/c")).doesNotExist();
    }

    // ---- item 14: an interrupted partition creation ----

    /**
     * What RocksDB 9.10's DB::Open(create_if_missing) has written at each step before CURRENT exists: LOCK and the info
     * LOG, then IDENTITY (through 000000.dbtmp), then MANIFEST-000001, then CURRENT's temp file 000001.dbtmp — the sets
     * InterruptedCreationE2eTest observes when it kills a creating JVM at each step.
     */
    private static void creationLeftovers(Path p, int step) throws IOException {
        Files.createDirectories(p);
        Files.writeString(p.resolve("LOCK"), "");
        Files.writeString(p.resolve("LOG"), "RocksDB version: 9.10.0\n");
        if (step >= 1) {
            Files.writeString(p.resolve("000000.dbtmp"), "9f1d1c2e-0000-4000-8000-000000000000");
        }
        if (step >= 2) {
            Files.move(p.resolve("000000.dbtmp"), p.resolve("IDENTITY"));
        }
        if (step >= 3) {
            Files.write(p.resolve("MANIFEST-000001"), new byte[] {0x12, 0x34, 0, 0, 0x20, 0, 1}); // torn first record
        }
        if (step >= 4) {
            Files.writeString(p.resolve("000001.dbtmp"), "MANIFEST-000001\n");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4})
    void aPartitionWhoseCreationWasInterruptedIsCreatedWhenAddedToAStore(int step) throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir, "a"))) {
            n.partition("a").put(key(1), "va".getBytes(), WriteMode.SYNC);
        }
        creationLeftovers(dir.resolve("partitions/b"), step);
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("a").get(key(1))).isEqualTo("va".getBytes());
            assertThat(n.partition("b").get(key(1))).isNull();
            n.partition("b").put(key(2), "vb".getBytes(), WriteMode.SYNC);
        }
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("b").get(key(2))).isEqualTo("vb".getBytes());
        }
    }

    @Test
    void aStoreWhosePartitionsDirectoryIsMissingIsRefusedNotOpenedEmpty() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
        Path partitions = dir.resolve("partitions");
        Files.move(partitions, dir.resolveSibling("elsewhere")); // a volume not mounted, a deleted directory
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("no " + partitions)
                .hasMessageContaining("did not open or change it");
        assertThat(Files.exists(partitions))
                .as("not created by the refused open")
                .isFalse();
        Files.move(dir.resolveSibling("elsewhere"), partitions);
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(1))).isEqualTo("v".getBytes());
        }
    }

    /** A first open killed after it created the partitions directory, before the marker was renamed into place. */
    @Test
    void aCreationKilledBeforeTheMarkerWasInPlaceOpensAsANewStore() throws IOException {
        Files.createDirectories(dir.resolve("partitions"));
        Files.writeString(dir.resolve("SLUICE.tmp"), "# Sluice store marker. Do not delete or edit.\nfor");
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            assertThat(n.defaultPartition().get(key(1))).isEqualTo("v".getBytes());
        }
    }

    @Test
    void aFirstOpenKilledWhileCreatingThePartitionOpensAfterwards() throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("SLUICE"), "# Sluice store marker. Do not delete or edit.\nformat=1\n");
        creationLeftovers(dir.resolve("partitions/default"), 3); // creates partitions/ too
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
    }

    @Test
    void aDirectoryWithoutCurrentButWithAWalStaysRefused() throws IOException {
        creationLeftovers(dir.resolve("partitions/default"), 3);
        Files.writeString(dir.resolve("SLUICE"), "format=1\n");
        Files.write(dir.resolve("partitions/default/000004.log"), new byte[] {1, 2, 3});
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("partition 'default'")
                .hasMessageContaining("no CURRENT");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    // ---- item 8: a power cut's lost unsynced tail vs. damage ----

    /** 1000 puts of 100 bytes in {@code mode}, closed unflushed: returns the WAL holding them. */
    private Path walOf(WriteMode mode) throws IOException {
        return walOf(mode, false);
    }

    private Path walOf(WriteMode mode, boolean zeroValues) throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < 1000; i++) {
                byte[] v = new byte[100];
                if (!zeroValues) {
                    java.util.Arrays.fill(v, (byte) ('a' + i % 26)); // a zeroed page must change bytes
                }
                n.defaultPartition().put(key(i), v, mode);
            }
        }
        try (Stream<Path> s = Files.list(dir.resolve("partitions/default"))) {
            return s.filter(p -> p.toString().endsWith(".log"))
                    .filter(p -> p.toFile().length() > 0)
                    .findFirst()
                    .orElseThrow();
        }
    }

    /** XORs the byte at {@code offset} of {@code f} with {@code mask} (damage that is not a power cut's zeros). */
    static void flipBits(Path f, long offset, int mask) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(offset);
            int b = raf.read();
            raf.seek(offset);
            raf.write(b ^ mask);
        }
    }

    /** Writes 4 KiB of zeros at {@code pageOffset} (a page a power cut lost). */
    static void zeroPage(Path f, long pageOffset) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(pageOffset);
            raf.write(new byte[4096]);
        }
    }

    /**
     * writes.sync=false and a power cut: the kernel wrote back later pages of the WAL but not an earlier one, which
     * reads as zeros. Nothing after the hole was fsynced, so point-in-time recovery is right: the store opens with every
     * write before the hole.
     */
    @Test
    void aZeroedPageFollowedByAsyncRecordsIsAPowerCutAndOpens() throws IOException {
        Path wal = walOf(WriteMode.ASYNC);
        assertThat(Files.size(wal)).isGreaterThan(3 * 32 * 1024);
        zeroPage(wal, 8192);
        Path record = dir.resolve("partitions/default").resolve(CleanClose.FILE);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .as("after a clean close every record was synced: a hole is damage, not a power cut")
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("lost acknowledged writes");
        // A power cut: the node never closed, so there is no clean-close record (walOf closes it to reach the WAL).
        Files.delete(record);
        int present = 0;
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            while (present < 1000 && n.defaultPartition().get(key(present)) != null) {
                present++;
            }
            for (int i = present; i < 1000; i++) {
                assertThat(n.defaultPartition().get(key(i)))
                        .as("key %d after the hole", i)
                        .isNull();
            }
            n.defaultPartition().put(key(5000), "after".getBytes(), WriteMode.SYNC);
        }
        assertThat(present).as("writes before the hole").isBetween(50, 70); // 8192 B / ~130 B per record
    }

    /** The same hole before acknowledged SYNC writes: those bytes had been fsynced, so it is damage: refused. */
    @Test
    void aZeroedPageFollowedBySyncRecordsIsDamageAndRefused() throws IOException {
        Path wal = walOf(WriteMode.SYNC);
        zeroPage(wal, 8192);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(wal.getFileName() + " is corrupted at offset")
                .hasMessageContaining("acknowledged SYNC write");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /**
     * Zero values: zeroing a page can leave the record that runs into it intact (its bytes there were zeros already) and
     * turn the next record header into zeros, which RocksDB skips as padding up to the block end — it then replays the
     * later blocks. Before SYNC writes were marked, that opened silently without the SYNC writes in between. Refused.
     */
    @Test
    void aZeroedPageInAWalOfZeroValuesBeforeSyncWritesIsRefused() throws IOException {
        Path wal = walOf(WriteMode.SYNC, true);
        zeroPage(wal, 8192);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(wal.getFileName() + " is corrupted at offset")
                .hasMessageContaining("acknowledged SYNC write");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /** A flipped byte inside the WAL is not what a power cut leaves, even when only ASYNC writes follow: refused. */
    @Test
    void aFlippedByteFollowedByAsyncRecordsIsDamageAndRefused() throws IOException {
        Path wal = walOf(WriteMode.ASYNC);
        flipBits(wal, 5000, 0x10);
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("not a zeroed page");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    // ---- item 13 ----

    @Test
    void aBinaryGarbageMarkerIsNamed() throws IOException {
        Files.write(dir.resolve("SLUICE"), new byte[] {(byte) 0xC3, 0x28, (byte) 0xFF, (byte) 0xFE, 0, 1});
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(dir.resolve("SLUICE").toString())
                .hasMessageContaining("marker");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    /** Damaged-store probe (2026-11-28): an emptied marker was reported as "says format=null". */
    @Test
    void aMarkerWithoutItsFormatLineSaysSoAndTrailingBlanksAreRead() throws IOException {
        twoPartitionStore();
        Path marker = dir.resolve("SLUICE");
        String good = Files.readString(marker);
        Files.writeString(marker, "");
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "a", "b")))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining("has no format line")
                .hasMessageContaining("format=1");
        assertThat(hashes(dir)).isEqualTo(before);
        Files.writeString(marker, good.replace("format=1", "format = 1   "));
        try (SluiceNode n = Sluice.open(cfg(dir, "a", "b"))) {
            assertThat(n.partition("a").get(key(1))).isNotNull();
        }
    }

    @Test
    void aMarkerThatIsADirectoryIsNamed() throws IOException {
        Files.createDirectories(dir.resolve("partitions"));
        Files.createDirectory(dir.resolve("SLUICE"));
        Map<String, String> before = hashes(dir);
        assertThatThrownBy(() -> Sluice.open(cfg(dir)))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(dir.resolve("SLUICE") + " is not a regular file");
        assertThat(hashes(dir)).isEqualTo(before);
    }

    @Test
    void aNullRegistryOrAnEventsFileThatIsADirectoryIsRefusedBeforeAnythingIsCreated() throws IOException {
        Path fresh = dir.resolve("fresh");
        assertThatThrownBy(() -> Sluice.open(cfg(fresh), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry");
        Path events = Files.createDirectories(dir.resolve("events"));
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(fresh)
                        .env("default")
                        .controlEventsFile(events)
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.events.file")
                .hasMessageContaining("is a directory");
        assertThat(fresh).as("nothing created on the fresh path").doesNotExist();
    }

    /**
     * An events file inside the store is refused (JSON appended to PARTITIONS or a WAL damaged the store), and one that
     * cannot be opened is refused before the store is created: nothing is left on the fresh path.
     */
    @Test
    void anEventsFileInsideTheStoreOrUnopenableIsRefusedAndNothingIsCreated() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            n.defaultPartition().put(key(1), "v".getBytes(), WriteMode.SYNC);
        }
        Map<String, String> before = hashes(dir);
        for (Path inside : List.of(dir.resolve("PARTITIONS"), dir.resolve("partitions/default/CURRENT"), dir)) {
            assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(dir)
                            .env("default")
                            .controlEventsFile(inside)
                            .build()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("control.events.file");
        }
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(dir)
                        .env("default")
                        .controlEventsFile(dir.resolve("partitions/../PARTITIONS"))
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is inside data.dir");
        assertThat(hashes(dir)).isEqualTo(before);
        Path alias = Files.createSymbolicLink(dir.resolveSibling(dir.getFileName() + "-alias"), dir);
        try {
            assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(dir)
                            .env("default")
                            .controlEventsFile(alias.resolve("partitions/default/events.jsonl"))
                            .build()))
                    .as("through a symbolic link to the store")
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("is inside data.dir");
        } finally {
            Files.delete(alias);
        }

        Path fresh = dir.resolve("fresh");
        Path aFile = Files.writeString(dir.resolve("a-file"), "x");
        assertThatThrownBy(() -> Sluice.open(SluiceConfig.builder(fresh)
                        .env("default")
                        .controlEventsFile(aFile.resolve("events.jsonl"))
                        .build()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("control.events.file")
                .hasMessageContaining("cannot be opened for appending");
        assertThat(fresh).as("nothing created on the fresh path").doesNotExist();
    }

    @Test
    void aNullConfigIsAConfigException() {
        assertThatThrownBy(() -> Sluice.open((SluiceConfig) null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config");
    }

    // ---- helpers ----

    /** Relative path → SHA-256 of every file, info LOGs included; directories too (so a new empty one shows). */
    static Map<String, String> hashes(Path root) throws IOException {
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
