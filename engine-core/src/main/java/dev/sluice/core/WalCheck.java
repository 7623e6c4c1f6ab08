package dev.sluice.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Checks a partition's write-ahead logs before RocksDB opens them.
 *
 * <p><b>Why.</b> On RocksDB 9.10 a checksum failure in the middle of a WAL either makes {@code DB::Open} spin forever
 * (facebook/rocksdb#13333) or, with the default point-in-time recovery, opens the DB having silently dropped every
 * record from the bad one on — acknowledged, fsynced writes included (measured: corrupting bytes 100–107 of a WAL of
 * 1000 synced puts opened with 0 of them present). Neither is acceptable for a store, so Sluice reads the WALs first.
 *
 * <p><b>Rule.</b> A record whose checksum fails <em>and is followed by a valid record</em> is corruption: the open is
 * refused with {@link StoreCorruptedException} naming the file and offset, and nothing is written. A bad or torn record
 * with nothing valid after it is the normal tail of a crash (an unfinished write) and is left to RocksDB's recovery.
 *
 * <p><b>Format</b> (RocksDB {@code db/log_format.h}): 32 KiB blocks; a record never crosses a block; header = masked
 * CRC32C (4 B, little endian) + length (2 B) + type (1 B), plus a 4-byte log number for the recyclable types 5–8 and
 * 11; the CRC covers the type byte, the log number if any, and the payload; block tails shorter than a header, and
 * zero-filled (preallocated) space, are padding. Cost: one sequential read of the WALs at open (CRC32C is intrinsic on
 * x86-64: GB/s).
 */
final class WalCheck {
    private WalCheck() {}

    static final int BLOCK = 32 * 1024;
    private static final int HEADER = 7;
    private static final int RECYCLABLE_HEADER = 11;

    /** Problems found in the WAL files of {@code dir} (empty when every WAL is sound up to a possibly torn tail). */
    static List<String> check(Path dir) throws IOException {
        List<String> problems = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path wal : (Iterable<Path>)
                    s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted()::iterator) {
                checkFile(wal).ifPresent(problems::add);
            }
        }
        return problems;
    }

    /** A description of mid-file corruption in one WAL file, if any. */
    static Optional<String> checkFile(Path wal) throws IOException {
        long firstBad = -1;
        String firstBadWhy = null;
        byte[] block = new byte[BLOCK];
        long blockStart = 0;
        try (InputStream in = Files.newInputStream(wal)) {
            int n;
            while ((n = in.readNBytes(block, 0, BLOCK)) > 0) {
                int pos = 0;
                while (pos + HEADER <= n) {
                    int len = (block[pos + 4] & 0xFF) | (block[pos + 5] & 0xFF) << 8;
                    int type = block[pos + 6] & 0xFF;
                    if (type == 0 && len == 0 && isZero(block, pos, Math.min(n, pos + HEADER))) {
                        break; // zero padding / preallocated space: rest of the block is empty
                    }
                    int header = type >= 5 && type <= 8 || type == 11 ? RECYCLABLE_HEADER : HEADER;
                    String why = null;
                    if (pos + header + len > n) {
                        why = "record of " + len + " bytes runs past its block";
                    } else {
                        CRC32C crc = new CRC32C();
                        crc.update(block, pos + 6, 1 + (header - HEADER)); // type (+ log number)
                        crc.update(block, pos + header, len);
                        int expected = (block[pos] & 0xFF)
                                | (block[pos + 1] & 0xFF) << 8
                                | (block[pos + 2] & 0xFF) << 16
                                | (block[pos + 3] & 0xFF) << 24;
                        if (mask((int) crc.getValue()) != expected) {
                            why = "record checksum mismatch";
                        }
                    }
                    if (why != null) {
                        if (firstBad < 0) {
                            firstBad = blockStart + pos;
                            firstBadWhy = why;
                        }
                        break; // cannot resynchronize inside a block: go on with the next one
                    }
                    if (firstBad >= 0) {
                        return Optional.of(
                                wal.getFileName() + " is corrupted at offset " + firstBad + " (" + firstBadWhy
                                        + ") and valid records follow at offset " + (blockStart + pos)
                                        + ": RocksDB would drop acknowledged writes (or hang) recovering it");
                    }
                    pos += header + len;
                }
                blockStart += n;
                if (n < BLOCK) {
                    break;
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** RocksDB's crc32c::Mask. */
    static int mask(int crc) {
        return ((crc >>> 15) | (crc << 17)) + 0xa282ead8;
    }
}
