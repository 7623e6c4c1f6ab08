package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** The properties block read directly gives what RocksDB itself records for each table. */
class SstPropertiesTest {
    @TempDir
    Path dir;

    @Test
    void theLargestSequenceNumberOfEveryTableIsTheOneRocksDbRecords() throws Exception {
        RocksDB.loadLibrary();
        int tables = 0;
        try (Options o = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(o, dir.toString());
                FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            for (int i = 0; i < 1000; i++) {
                db.put(("k" + i).getBytes(), new byte[100]);
            }
            db.flush(f);
            for (int i = 0; i < 500; i++) {
                db.delete(("k" + i).getBytes()); // a table of deletions only
            }
            db.flush(f);
            for (LiveFileMetaData m : db.getLiveFilesMetaData()) {
                Path sst = dir.resolve(Path.of(m.fileName()).getFileName());
                assertThat(SstProperties.largestSeqno(sst)).as(sst.toString()).hasValue(m.largestSeqno());
                assertThat(SstProperties.read(sst)).containsKey("rocksdb.num.entries");
                tables++;
            }
        }
        assertThat(tables).isEqualTo(2);
    }

    @Test
    void whatIsNotATableGivesNothing() throws Exception {
        Path garbage = Files.write(dir.resolve("000001.sst"), new byte[4096]);
        assertThat(SstProperties.largestSeqno(garbage)).isEmpty();
        Path tiny = Files.write(dir.resolve("000002.sst"), new byte[] {1, 2, 3});
        assertThat(SstProperties.read(tiny)).isEmpty();
        assertThat(SstProperties.largestSeqno(dir.resolve("absent.sst"))).isEmpty();
        byte[] random = new byte[8192];
        new java.util.Random(7).nextBytes(random);
        // a footer's magic number at the end, garbage before it: handles out of range are not followed
        java.nio.ByteBuffer.wrap(random, random.length - 8, 8)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(0x88e241b785f4cff7L);
        Path forged = Files.write(dir.resolve("000003.sst"), random);
        assertThat(SstProperties.largestSeqno(forged)).isEmpty();
    }
}
