package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WalCheck on WAL files built record by record in RocksDB's log format (db/log_format.h). */
class WalCheckTest {
    @TempDir
    Path dir;

    /** A FULL record (type 1) whose payload is {@code payload}. */
    private static byte[] full(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(new byte[] {1});
        crc.update(payload);
        int c = WalCheck.mask((int) crc.getValue());
        byte[] r = new byte[7 + payload.length];
        r[0] = (byte) c;
        r[1] = (byte) (c >>> 8);
        r[2] = (byte) (c >>> 16);
        r[3] = (byte) (c >>> 24);
        r[4] = (byte) payload.length;
        r[5] = (byte) (payload.length >>> 8);
        r[6] = 1;
        System.arraycopy(payload, 0, r, 7, payload.length);
        return r;
    }

    private static byte[] payload(int i, boolean sync) {
        byte[] p = new byte[200];
        java.util.Arrays.fill(p, (byte) (1 + i % 200));
        if (sync) {
            System.arraycopy(WalCheck.SYNC_MARK, 0, p, 100, WalCheck.SYNC_MARK.length);
        }
        return p;
    }

    /** Block 0: 20 records, then zeros to the block end (a hole at a record header); block 1: 20 more records. */
    private Path walWithHoleAtAHeader(boolean syncAfter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 20; i++) {
            out.write(full(payload(i, false)));
        }
        out.write(new byte[WalCheck.BLOCK - out.size()]);
        for (int i = 20; i < 40; i++) {
            out.write(full(payload(i, syncAfter && i == 30)));
        }
        Path wal = dir.resolve("000004.log");
        Files.write(wal, out.toByteArray());
        return wal;
    }

    @Test
    void aZeroFilledHoleFollowedByASyncWriteIsDamage() throws IOException {
        assertThat(WalCheck.checkFile(walWithHoleAtAHeader(true)))
                .hasValueSatisfying(
                        m -> assertThat(m).contains("zero-filled hole").contains("acknowledged SYNC write"));
    }

    @Test
    void aZeroFilledHoleFollowedOnlyByAsyncWritesIsAPowerCut() throws IOException {
        assertThat(WalCheck.checkFile(walWithHoleAtAHeader(false))).isEmpty();
    }

    @Test
    void zerosAtTheEndArePreallocatedSpace() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 20; i++) {
            out.write(full(payload(i, true)));
        }
        out.write(new byte[3 * WalCheck.BLOCK]);
        Path wal = dir.resolve("000004.log");
        Files.write(wal, out.toByteArray());
        assertThat(WalCheck.checkFile(wal)).isEmpty();
    }

    /** WriteBatch-like payloads with real sequence numbers (the check compares them when it resynchronizes). */
    private static byte[] batch(long seq, boolean sync) {
        byte[] p = payload((int) seq, sync);
        java.nio.ByteBuffer.wrap(p)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(0, seq)
                .putInt(8, 1);
        return p;
    }

    /** One partial block of 20 records (sequence 1..20), the last file block; {@code sync} marks record 15. */
    private Path oneBlockWal(boolean sync) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1; i <= 20; i++) {
            out.write(full(batch(i, sync && i == 15)));
        }
        Path wal = dir.resolve("000007.log");
        Files.write(wal, out.toByteArray());
        return wal;
    }

    private static void flip(Path wal, long offset) throws IOException {
        byte[] b = Files.readAllBytes(wal);
        b[(int) offset] ^= 0x01;
        Files.write(wal, b);
    }

    @Test
    void aFlippedByteInTheLastBlockFollowedByASyncWriteInThatBlockIsDamage() throws IOException {
        // record 5 starts at 4 * 207; flip a payload byte of it. RocksDB drops the rest of the block at the bad record
        // (point-in-time recovery stops there), so the SYNC write at record 15 would be lost: until 2026-11-28 the
        // check skipped the rest of the block too, saw nothing valid after the bad record and called it a torn tail.
        Path wal = oneBlockWal(true);
        flip(wal, 4 * 207 + 50);
        assertThat(WalCheck.checkFile(wal))
                .hasValueSatisfying(m -> assertThat(m)
                        .contains("record checksum mismatch")
                        .contains("offset " + 4 * 207)
                        .contains("acknowledged SYNC write at offset " + 14 * 207));
    }

    @Test
    void aFlippedByteInTheLastBlockFollowedByAsyncWritesIsDamageToo() throws IOException {
        // non-zero garbage followed by valid records is damage whatever block it is in (the class comment's rule)
        Path wal = oneBlockWal(false);
        flip(wal, 4 * 207 + 50);
        assertThat(WalCheck.checkFile(wal))
                .hasValueSatisfying(m -> assertThat(m).contains("not a zeroed page"));
    }

    @Test
    void aDamagedLengthIsSkippedByFindingTheNextBatch() throws IOException {
        // the length field of record 5 is corrupted, so the next record cannot be reached by it: found by its checksum
        Path wal = oneBlockWal(true);
        flip(wal, 4 * 207 + 5);
        assertThat(WalCheck.checkFile(wal))
                .hasValueSatisfying(m -> assertThat(m).contains("acknowledged SYNC write at offset " + 14 * 207));
    }

    @Test
    void zerosAtAHeaderFollowedByASyncWriteInTheSameBlockAreDamage() throws IOException {
        // RocksDB's reader skips the rest of a block from zeros at a record header and goes on silently
        Path wal = oneBlockWal(true);
        byte[] b = Files.readAllBytes(wal);
        java.util.Arrays.fill(b, 4 * 207, 5 * 207, (byte) 0);
        Files.write(wal, b);
        assertThat(WalCheck.checkFile(wal))
                .hasValueSatisfying(
                        m -> assertThat(m).contains("zero-filled hole").contains("acknowledged SYNC write"));
    }

    @Test
    void aTornLastRecordIsStillATornTail() throws IOException {
        Path wal = oneBlockWal(true);
        byte[] b = Files.readAllBytes(wal);
        Files.write(wal, java.util.Arrays.copyOf(b, b.length - 90)); // the last record cut by the crash
        assertThat(WalCheck.checkFile(wal)).isEmpty();
        b = Files.readAllBytes(wal);
        b[b.length - 20] ^= 0x40; // and garbage in what was written of it
        Files.write(wal, b);
        assertThat(WalCheck.checkFile(wal)).isEmpty();
    }

    /** 20 records of 207 bytes (sequence 1..20), the last one a SYNC write. */
    private static byte[] lastRecordSync() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1; i <= 20; i++) {
            out.write(full(batch(i, i == 20)));
        }
        return out.toByteArray();
    }

    @Test
    void aGarbledLastRecordThatIsWholeAndMarkedSyncIsDamage() throws IOException {
        // a probe (2026-11-29): one byte flipped in the last record, an acknowledged SYNC put, after a crash; the check
        // called it a torn tail and RocksDB dropped the write silently
        Path wal = dir.resolve("000009.log");
        Files.write(wal, lastRecordSync());
        assertThat(WalCheck.checkFile(wal)).isEmpty();
        flip(wal, 19 * 207 + 40);
        assertThat(WalCheck.checkFile(wal))
                .hasValueSatisfying(m -> assertThat(m)
                        .contains("offset " + 19 * 207)
                        .contains("holds the mark of a SYNC write")
                        .contains("not a torn tail"));
    }

    @Test
    void aLastSyncRecordWithAZeroedPagePartOrUnmarkedIsStillATornTail() throws IOException {
        // records of 207 bytes: record 20 spans 3933..4140, across the page boundary at 4096
        Path wal = dir.resolve("000010.log");
        byte[] b = lastRecordSync();
        java.util.Arrays.fill(b, 4096, b.length, (byte) 0); // the page after the boundary never reached the disk
        Files.write(wal, b);
        assertThat(WalCheck.checkFile(wal)).isEmpty();
        // an ASYNC last record garbled anywhere: nothing says it was fsynced
        Path async = oneBlockWal(false);
        flip(async, 19 * 207 + 40);
        assertThat(WalCheck.checkFile(async)).isEmpty();
    }

    /**
     * Random bytes over the end of a crashed WAL, or over all of it, are damage: a crash leaves a shorter file or zeroed
     * pages, not other bytes (a probe, 2026-11-29: both opened as a torn tail, an acknowledged SYNC write and
     * thousands of others gone, the WAL deleted).
     */
    @Test
    void randomBytesOverTheEndOrAllOfTheWalAreDamage() throws IOException {
        java.util.Random random = new java.util.Random(7);
        byte[] good = lastRecordSync(); // 20 records, 4,140 bytes
        for (int trial = 0; trial < 20; trial++) {
            byte[] b = good.clone();
            int from = 1 + random.nextInt(b.length - 300);
            byte[] garbage = new byte[b.length - from];
            random.nextBytes(garbage);
            System.arraycopy(garbage, 0, b, from, garbage.length);
            Path wal = dir.resolve("000011.log");
            Files.write(wal, b);
            assertThat(WalCheck.checkFile(wal))
                    .as("random bytes from offset %d", from)
                    .hasValueSatisfying(m -> assertThat(m).contains("not a torn tail"));
        }
        byte[] all = new byte[3 * WalCheck.BLOCK + 1000];
        random.nextBytes(all);
        Path wal = dir.resolve("000012.log");
        Files.write(wal, all);
        assertThat(WalCheck.checkFile(wal)).isPresent();
    }

    /** What a crash does leave after a garbled record is still a torn tail: zeros, and a record cut by the end. */
    @Test
    void aGarbledRecordFollowedByZerosOrACutRecordIsStillATornTail() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1; i <= 20; i++) {
            out.write(full(batch(i, false)));
        }
        byte[] b = out.toByteArray();
        b[10 * 207 + 40] ^= 0x40; // record 11 garbled (a lost sector's old bytes), records 12-20 intact but unseen
        Path wal = dir.resolve("000013.log");
        Files.write(wal, java.util.Arrays.copyOf(b, 11 * 207));
        assertThat(WalCheck.checkFile(wal)).as("garbled last record").isEmpty();
        Files.write(wal, java.util.Arrays.copyOf(b, 11 * 207 + 100));
        assertThat(WalCheck.checkFile(wal)).as("then a record cut by the end").isEmpty();
        // then zeros: preallocated space, or pages whose content never reached the disk
        Files.write(wal, java.util.Arrays.copyOf(java.util.Arrays.copyOf(b, 11 * 207), 11 * 207 + 5000));
        assertThat(WalCheck.checkFile(wal)).as("then zeros").isEmpty();
    }

    /** The SYNC mark and the batch header are found wherever fragment boundaries cut them. */
    @Test
    void aLogicalRecordFindsTheMarkAndHeaderAcrossEverySplit() {
        byte[] batch = new byte[64];
        java.nio.ByteBuffer.wrap(batch)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(0, 777)
                .putInt(8, 3);
        System.arraycopy(WalCheck.SYNC_MARK, 0, batch, 40, WalCheck.SYNC_MARK.length);
        WalCheck.LogicalRecord r = new WalCheck.LogicalRecord();
        for (int a = 0; a <= batch.length; a++) {
            for (int b = a; b <= batch.length; b += 3) {
                r.reset();
                r.write(batch, 0, a);
                r.write(batch, a, b - a);
                r.write(batch, b, batch.length - b);
                assertThat(r.sawSyncMark()).as("split at %d and %d", a, b).isTrue();
                assertThat(r.batchHeader()).as("split at %d and %d", a, b).containsExactly(777L, 3L);
            }
        }
        byte[] almost = batch.clone();
        almost[40 + WalCheck.SYNC_MARK.length - 1] ^= 1; // the mark's last byte differs
        for (int a = 0; a <= almost.length; a++) {
            r.reset();
            r.write(almost, 0, a);
            r.write(almost, a, almost.length - a);
            assertThat(r.sawSyncMark()).as("split at %d", a).isFalse();
        }
        r.reset();
        r.write(batch, 0, 11);
        assertThat(r.batchHeader()).as("shorter than a header").isNull();
    }
}
