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
}
