package dev.sluice.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a partition's write-ahead logs before RocksDB opens them, and tells damage from a power cut's lost unsynced
 * tail. Only the WALs RocksDB replays are checked: one numbered below the MANIFEST's log number ({@link
 * ManifestEdits#liveWalFloor}) was flushed, and a crash cut the flush short of unlinking it; RocksDB skips and deletes it.
 *
 * <p><b>Why.</b> On RocksDB 9.10 a checksum failure in the middle of a WAL either makes {@code DB::Open} spin forever
 * (facebook/rocksdb#13333) or, with point-in-time recovery, opens the DB having silently dropped every record from the
 * bad one on — acknowledged, fsynced writes included (measured: corrupting bytes 100–107 of a WAL of 1000 synced puts
 * opened with 0 of them present). So Sluice reads the WALs first.
 *
 * <p><b>Recovery mode.</b> Sluice opens with {@code WALRecoveryMode.kPointInTimeRecovery} (RocksDB's default, set
 * explicitly; the mode RocksDB's maintainers recommend after a machine crash): replay stops at the first bad record and
 * the DB is consistent as of the record before it.
 *
 * <p><b>Rule.</b> Every {@link WriteMode#SYNC} write carries {@link #SYNC_MARK} as WAL-only log data ({@code
 * WriteBatch::PutLogData}; never applied to the DB). When a record is bad (checksum mismatch, length past its block,
 * broken fragment sequence):
 *
 * <ul>
 *   <li>nothing valid after it: the torn tail of a crash — recovered by RocksDB; except a record that is whole in
 *       the file, holds the SYNC mark and whose bytes are not zeroed over a page (what a crash leaves of a write it cut
 *       short): a SYNC write returns only after its fsync, so such a record was on stable storage — refused;
 *   <li>a SYNC-marked record after it: the bad bytes precede an fsync that was acknowledged, so they were on stable
 *       storage and are <em>damage</em> — refused ({@link StoreCorruptedException}, naming file and offsets);
 *   <li>only unmarked (ASYNC) records after it, and the bad record holds a 4 KiB-aligned page of zeros: the shape of a
 *       power cut with {@code writes.sync=false} (page cache pages written back out of order; the lost ones read as
 *       zeros) — opened; point-in-time recovery keeps everything before the hole, and what it drops was never fsynced
 *       (logged as a warning);
 *   <li>otherwise (non-zero garbage, e.g. a flipped byte, followed by valid records): damage — refused.
 * </ul>
 *
 * So an acknowledged SYNC write is never dropped silently: it either survives or the open is refused. (WALs written
 * before SYNC writes were marked hold no mark; for them only the zero-page shape is accepted.)
 *
 * <p><b>Format</b> (RocksDB {@code db/log_format.h}): 32 KiB blocks; a record never crosses a block; header = masked
 * CRC32C (4 B, little endian) + length (2 B) + type (1 B), plus a 4-byte log number for the recyclable types 5–8 and
 * 11; types 1/5 FULL, 2/6 FIRST, 3/7 MIDDLE, 4/8 LAST; the CRC covers the type byte, the log number if any, and the
 * payload; block tails shorter than a header, and zero-filled (preallocated) space, are padding. Cost: one sequential
 * read of the WALs at open (CRC32C is intrinsic on x86-64: GB/s).
 */
final class WalCheck {
    private static final Logger log = LoggerFactory.getLogger(WalCheck.class);

    private WalCheck() {}

    static final int BLOCK = 32 * 1024;
    private static final int PAGE = 4096;
    private static final int HEADER = 7;
    private static final int RECYCLABLE_HEADER = 11;

    /** WAL-only log data appended to every SYNC write batch (RocksPartition); 16 bytes no user data is likely to hold. */
    static final byte[] SYNC_MARK = "\u0000sluice:SYNC-v1\u0000".getBytes(StandardCharsets.ISO_8859_1);

    /**
     * WALs in the order RocksDB wrote them: by file number ({@code %06llu.log}: {@code 1000000.log} comes after {@code
     * 999999.log}, which a sort by name gets wrong), names that are not numbers last.
     */
    static final java.util.Comparator<Path> BY_NUMBER = java.util.Comparator.comparingLong(WalCheck::walNumber)
            .thenComparing(p -> p.getFileName().toString());

    /** A WAL's file number ({@code 000012.log} is 12); {@code Long.MAX_VALUE} for a name that is not a number. */
    static long walNumber(Path wal) {
        String n = wal.getFileName().toString();
        try {
            return Long.parseLong(n.substring(0, n.length() - ".log".length()));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Problems found in the WAL files of {@code dir} (empty when every WAL is sound up to a possibly torn tail).
     *
     * <p>The live WALs are one log: when point-in-time recovery stops at a bad record of one WAL (accepted above as a
     * torn tail or a power cut's lost page; see {@link Scan#stops}), RocksDB replays a later WAL only if its first
     * batch continues the sequence numbers from the last good batch before the bad spot ({@code RecoverLogFiles});
     * otherwise it drops that whole WAL.
     * A dropped WAL that holds a SYNC-marked write is refused: that write was acknowledged, and its fsync also synced
     * the earlier WALs (RocksDB syncs every live WAL for a sync write), so the bad bytes before it are damage. Until
     * 2026-11-27 each WAL was judged alone, and a hole in an older WAL silently dropped the SYNC writes of a newer one
     * (two live WALs are common with many write buffers: a memtable switched, its flush not yet done at the crash).
     */
    static List<String> check(Path dir) throws IOException {
        List<String> problems = new ArrayList<>();
        Scan stop = null; // the earlier WAL whose bad spot recovery stops at, while later WALs do not continue it
        long after = -1; // the sequence number after the previous WAL's last intact batch: a floor for this one's
        long live = ManifestEdits.liveWalFloor(dir);
        try (Stream<Path> s = Files.list(dir)) {
            for (Path wal : (Iterable<Path>)
                    s.filter(p -> p.getFileName().toString().endsWith(".log") && Files.isRegularFile(p))
                            .sorted(BY_NUMBER)::iterator) {
                // (a *.log that is not a regular file is refused by StoreCheck before this runs; a FIFO would block)
                if (walNumber(wal) < live) {
                    // flushed before a crash cut the flush short of unlinking it: RocksDB skips it and deletes it
                    log.info(
                            "{}: older than the MANIFEST's log number {}, not replayed by RocksDB; not checked",
                            wal.getFileName(),
                            live);
                    continue;
                }
                Scan scan = scan(wal, after);
                if (scan.nextSequence() >= 0) {
                    after = scan.nextSequence();
                }
                if (stop != null && scan.firstSequence() >= 0) {
                    if (stop.nextSequence() >= 0 && scan.firstSequence() == stop.nextSequence()) {
                        stop = null; // continues the sequence: RocksDB replays it
                    } else if (scan.firstSync() >= 0) {
                        problems.add(stop.wal().getFileName() + " is corrupted at offset " + stop.firstBad() + " ("
                                + stop.firstBadWhy() + "), and the later " + wal.getFileName()
                                + " does not continue its sequence numbers (first batch " + scan.firstSequence()
                                + ", expected " + (stop.nextSequence() < 0 ? "unknown" : stop.nextSequence())
                                + ") but holds an acknowledged SYNC write at offset " + scan.firstSync()
                                + ": recovery would stop at the bad record and drop " + wal.getFileName()
                                + " whole; that SYNC write's fsync had synced the earlier WAL, so the bad bytes are"
                                + " damage, not a lost unsynced tail");
                        continue;
                    } else {
                        log.warn(
                                "{}: recovery stops at offset {} of {} and drops this WAL ({} records, none a SYNC"
                                        + " write: unsynced writes a crash may lose)",
                                wal.getFileName(),
                                stop.firstBad(),
                                stop.wal().getFileName(),
                                scan.records());
                        continue;
                    }
                }
                scan.problem().ifPresent(problems::add);
                if (scan.problem().isEmpty() && scan.firstBad() >= 0 && scan.stops()) {
                    stop = scan;
                }
            }
        }
        return problems;
    }

    /** A description of damage in one WAL file, if any (see the class comment for what counts as damage). */
    static Optional<String> checkFile(Path wal) throws IOException {
        return scan(wal, -1).problem();
    }

    /**
     * One WAL read through.
     *
     * @param problem damage within this file (see the class comment)
     * @param firstBad offset of the first bad record or hole; -1 when none
     * @param stops whether RocksDB's reader reports {@code firstBad} as corruption, which stops point-in-time recovery
     *     there: every bad record (checksum, length), zeros inside a fragmented record, and a header or record cut by
     *     the end of the file (a torn tail: the last WAL ends there anyway, an older one's successors must continue its
     *     sequence); zeros at a record boundary it skips as padding
     * @param nextSequence the sequence number after the last intact batch before {@code firstBad} (or of the whole
     *     file when none is bad); -1 when there is no such batch
     * @param firstSequence the sequence number of the file's first intact batch; -1 when it has none
     * @param firstSync offset of the file's first SYNC-marked batch; -1 when none
     * @param records intact batches in the file
     */
    record Scan(
            Path wal,
            Optional<String> problem,
            long firstBad,
            String firstBadWhy,
            boolean stops,
            long nextSequence,
            long firstSequence,
            long firstSync,
            long records) {}

    /**
     * One logical record (a WriteBatch) read fragment by fragment in constant memory: its first 12 bytes (the
     * WriteBatch header: 8-byte sequence number and 4-byte count, little endian) and whether {@link #SYNC_MARK} occurs
     * in it, found across fragment boundaries by keeping the last {@code SYNC_MARK.length - 1} bytes. Until 2026-11-28
     * the check held each whole record on the heap (twice, as it copied it once more): a store holding an acknowledged
     * batch of a few hundred MB could not be reopened in the heap that wrote it, and one over 2 GiB in no heap at all
     * (OutOfMemoryError at every open; found by a lifecycle probe).
     */
    static final class LogicalRecord {
        private final byte[] head = new byte[12];
        private int headLength;
        private final byte[] tail = new byte[SYNC_MARK.length - 1];
        private int tailLength;
        private boolean sync;

        void reset() {
            headLength = 0;
            tailLength = 0;
            sync = false;
        }

        void write(byte[] b, int off, int len) {
            int h = Math.min(len, head.length - headLength);
            System.arraycopy(b, off, head, headLength, h);
            headLength += h;
            if (!sync) {
                sync = markAcrossBoundary(b, off, len) || indexOf(b, off, off + len) >= 0;
            }
            // keep the last bytes seen, for a mark split between this fragment and the next
            int keep = Math.min(tail.length, tailLength + len);
            int fromNew = Math.min(len, keep);
            int fromOld = keep - fromNew;
            System.arraycopy(tail, tailLength - fromOld, tail, 0, fromOld);
            System.arraycopy(b, off + len - fromNew, tail, fromOld, fromNew);
            tailLength = keep;
        }

        /** A mark that starts in the kept bytes and ends in {@code b[off, off + len)}: a small joined window. */
        private boolean markAcrossBoundary(byte[] b, int off, int len) {
            if (tailLength == 0) {
                return false;
            }
            int more = Math.min(len, SYNC_MARK.length - 1);
            byte[] window = new byte[tailLength + more];
            System.arraycopy(tail, 0, window, 0, tailLength);
            System.arraycopy(b, off, window, tailLength, more);
            return indexOf(window, 0, window.length) >= 0;
        }

        /** Where {@link #SYNC_MARK} starts in {@code b[from, to)}, or -1. */
        private static int indexOf(byte[] b, int from, int to) {
            byte first = SYNC_MARK[0];
            outer:
            for (int i = from; i + SYNC_MARK.length <= to; i++) {
                if (b[i] != first) {
                    continue;
                }
                for (int j = 1; j < SYNC_MARK.length; j++) {
                    if (b[i + j] != SYNC_MARK[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }

        boolean sawSyncMark() {
            return sync;
        }

        /** The batch's sequence number and count; null when the record is shorter than a WriteBatch header. */
        long[] batchHeader() {
            if (headLength < 12) {
                return null;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(head).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            return new long[] {b.getLong(0), Integer.toUnsignedLong(b.getInt(8))};
        }
    }

    /**
     * @param floor a sequence number this WAL's batches are at or above (the previous WAL's next one), or -1: bounds
     *     the search for intact batches after damage when no intact batch came before it in this file
     */
    private static Scan scan(Path wal, long floor) throws IOException {
        long nextSequence = -1;
        long firstSequence = -1;
        long firstSync = -1;
        long records = 0;
        long firstBad = -1;
        String firstBadWhy = null;
        boolean firstBadStops = false;
        boolean lostPageShape = false;
        boolean firstBadWholeSync = false;
        long firstValidAfter = -1;
        long syncAfter = -1;
        long recordsAfter = 0;
        LogicalRecord logical = new LogicalRecord();
        long logicalStart = -1;
        boolean inFragmented = false;
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
                        // Zeros: preallocated space at the end of the file, or — if valid records follow — a hole
                        // (RocksDB skips the rest of the block and goes on).
                        if (firstBad < 0) {
                            firstBad = blockStart + pos;
                            firstBadWhy = "zero-filled hole";
                            lostPageShape = true;
                            // RocksDB's reader skips zeros as padding, and reports them only inside a fragmented record
                            firstBadStops = inFragmented;
                        }
                        logical.reset();
                        inFragmented = false;
                        int at = resync(block, pos + HEADER, n, nextSequence >= 0 ? nextSequence : floor);
                        if (at < 0) {
                            break;
                        }
                        pos = at;
                        continue;
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
                            lostPageShape = hasZeroPage(block, pos, Math.min(n, pos + header + len));
                            // whole in the file, marked SYNC and garbled without a zeroed page: not a crash's tear
                            int end = pos + header + len;
                            firstBadWholeSync = end <= n
                                    && LogicalRecord.indexOf(block, pos + header, end) >= 0
                                    && !tornShape(block, pos + header, end);
                            // reported as corruption in point-in-time mode, at the end of the file too ("truncated
                            // record body": a hole the higher layer stops at)
                            firstBadStops = true;
                        }
                        logical.reset();
                        inFragmented = false;
                        // RocksDB's reader drops the rest of the block here; find what it drops (see resync). Not
                        // for a record cut by the end of the file (a crash's torn tail): all that follows is its own
                        // payload, whose user bytes could hold a WAL record of another store (review, 2026-11-28)
                        boolean cutByTheEnd = n < BLOCK && pos + header + len > n;
                        int at = cutByTheEnd ? -1 : resync(block, pos + 1, n, nextSequence >= 0 ? nextSequence : floor);
                        if (at < 0) {
                            break;
                        }
                        pos = at;
                        continue;
                    }
                    // a valid physical record: reassemble logical records to look for the SYNC mark
                    int base = type >= 5 && type <= 8 ? type - 4 : type;
                    long at = blockStart + pos;
                    if (base == 1 || base == 2) {
                        logical.reset();
                        logicalStart = at;
                        inFragmented = base == 2;
                        logical.write(block, pos + header, len);
                    } else if ((base == 3 || base == 4) && inFragmented) {
                        logical.write(block, pos + header, len);
                    } else if (base == 3 || base == 4) {
                        logical.reset(); // a fragment whose start was lost: cannot tell what it holds
                    }
                    boolean complete = base == 1 || base == 4 && inFragmented;
                    if (base == 4) {
                        inFragmented = false;
                    }
                    if (complete) {
                        boolean sync = logical.sawSyncMark();
                        long[] h = logical.batchHeader();
                        records++;
                        if (firstSync < 0 && sync) {
                            firstSync = logicalStart;
                        }
                        if (h != null && firstSequence < 0) {
                            firstSequence = h[0];
                        }
                        if (h != null && firstBad < 0) {
                            nextSequence = h[0] + h[1];
                        }
                        if (firstBad >= 0) {
                            recordsAfter++;
                            if (syncAfter < 0 && sync) {
                                syncAfter = logicalStart;
                            }
                        }
                    }
                    if (firstBad >= 0 && firstValidAfter < 0) {
                        firstValidAfter = at;
                    }
                    pos += header + len;
                }
                if (n < BLOCK && pos < n && firstBad < 0) {
                    // 1-6 bytes after the last record of the file's last, partial block: a header cut by the end of
                    // the file, which RocksDB's reader reports in point-in-time mode ("truncated header")
                    firstBad = blockStart + pos;
                    firstBadWhy = "header cut by the end of the file";
                    firstBadStops = true;
                }
                blockStart += n;
                if (n < BLOCK) {
                    break;
                }
            }
        }
        if (inFragmented && firstBad < 0) {
            // the file ends inside a record split over blocks: reported too ("error reading trailing data")
            firstBad = logicalStart;
            firstBadWhy = "record cut by the end of the file";
            firstBadStops = true;
        }
        // a garbled record with nothing valid after it is a torn tail only if what follows it is what a crash leaves
        boolean garbageAfter = firstBad >= 0
                && firstValidAfter < 0
                && !firstBadWholeSync
                && firstBadWhy != null
                && (firstBadWhy.equals("record checksum mismatch") || firstBadWhy.endsWith("runs past its block"))
                && !crashShapedTail(wal, firstBad);
        Optional<String> problem = garbageAfter
                ? Optional.of(wal.getFileName() + " is corrupted at offset " + firstBad + " (" + firstBadWhy
                        + ") and what follows it to the end of the file is neither zeros nor records cut short: a"
                        + " crash leaves a shorter file or zeroed pages at the end of a WAL, not other bytes, so this"
                        + " is damage, not a torn tail; RocksDB would recover past it and delete the WAL, dropping the"
                        + " writes those bytes held, acknowledged SYNC writes among them")
                : problem(
                        wal,
                        firstBad,
                        firstBadWhy,
                        lostPageShape,
                        firstBadWholeSync,
                        firstValidAfter,
                        syncAfter,
                        recordsAfter);
        return new Scan(
                wal, problem, firstBad, firstBadWhy, firstBadStops, nextSequence, firstSequence, firstSync, records);
    }

    private static Optional<String> problem(
            Path wal,
            long firstBad,
            String firstBadWhy,
            boolean lostPageShape,
            boolean firstBadWholeSync,
            long firstValidAfter,
            long syncAfter,
            long recordsAfter) {
        if (firstBad < 0) {
            return Optional.empty(); // sound
        }
        String where = wal.getFileName() + " is corrupted at offset " + firstBad + " (" + firstBadWhy + ")";
        if (firstValidAfter < 0) {
            if (firstBadWholeSync) {
                // a probe (2026-11-29): one byte flipped in the last record, a SYNC put, after a crash; the open
                // dropped it silently as a torn tail
                return Optional.of(where + ", the last record of the file: it is whole, holds the mark of a SYNC"
                        + " write, and its bad bytes are not the zeros a crash leaves where it cut a write short, so"
                        + " this is damage, not a torn tail; RocksDB would drop that acknowledged write recovering it");
            }
            return Optional.empty(); // a torn tail
        }
        if (syncAfter >= 0) {
            return Optional.of(where + " and valid records follow at offset " + firstValidAfter
                    + ", among them an acknowledged SYNC write at offset " + syncAfter
                    + ": the damaged bytes had been fsynced, so this is damage, not a lost unsynced tail; RocksDB would"
                    + " drop acknowledged writes (or hang) recovering it");
        }
        if (lostPageShape) {
            log.warn(
                    "{}: {} valid records follow at offset {}, none of them a SYNC write, and the bad record holds a"
                            + " zeroed 4 KiB page: the shape of a power cut that lost unsynced (ASYNC) writes. Opening"
                            + " with point-in-time recovery: everything before offset {} is kept; the {} records"
                            + " after it were never fsynced and RocksDB may drop them",
                    where,
                    recordsAfter,
                    firstValidAfter,
                    firstBad,
                    recordsAfter);
            return Optional.empty();
        }
        return Optional.of(where + " and valid records follow at offset " + firstValidAfter
                + " (the bad bytes are not a zeroed page, as a power cut leaves them): RocksDB would drop"
                + " acknowledged writes (or hang) recovering it");
    }

    /**
     * Calls {@code sink} with the payload of every intact logical record of {@code wal} (a WriteBatch each), in file
     * order; bad records and fragments whose start is missing are skipped.
     */
    static void forEachRecord(Path wal, java.util.function.Consumer<byte[]> sink) throws IOException {
        forEachRecord(wal, sink, header -> {});
    }

    /** The largest logical record {@link #forEachRecord} hands over whole; a larger one is skipped. */
    static final int MAX_RECORD_BYTES = 256 << 20;

    /**
     * As {@link #forEachRecord(Path, java.util.function.Consumer)}, but a record larger than {@link #MAX_RECORD_BYTES}
     * is not assembled on the heap: {@code tooLarge} gets its first (up to) 12 bytes instead — a WriteBatch's header,
     * its sequence number and count — once per such record.
     */
    static void forEachRecord(
            Path wal, java.util.function.Consumer<byte[]> sink, java.util.function.Consumer<byte[]> tooLarge)
            throws IOException {
        ByteArrayOutputStream logical = new ByteArrayOutputStream();
        byte[] firstBytes = new byte[0]; // of the fragmented record being assembled
        boolean inFragmented = false;
        boolean skipping = false; // inside a fragmented record already over the limit
        byte[] block = new byte[BLOCK];
        try (InputStream in = Files.newInputStream(wal)) {
            int n;
            while ((n = in.readNBytes(block, 0, BLOCK)) > 0) {
                int pos = 0;
                while (pos + HEADER <= n) {
                    int len = (block[pos + 4] & 0xFF) | (block[pos + 5] & 0xFF) << 8;
                    int type = block[pos + 6] & 0xFF;
                    int header = type >= 5 && type <= 8 || type == 11 ? RECYCLABLE_HEADER : HEADER;
                    if (type == 0 || pos + header + len > n || !crcOk(block, pos, header, len)) {
                        logical.reset();
                        inFragmented = false;
                        skipping = false;
                        break;
                    }
                    int base = type >= 5 && type <= 8 ? type - 4 : type;
                    if (base == 1) {
                        sink.accept(java.util.Arrays.copyOfRange(block, pos + header, pos + header + len));
                        inFragmented = false;
                        skipping = false;
                    } else if (base == 2) {
                        logical.reset();
                        logical.write(block, pos + header, len);
                        firstBytes =
                                java.util.Arrays.copyOfRange(block, pos + header, pos + header + Math.min(12, len));
                        inFragmented = true;
                        skipping = false;
                    } else if ((base == 3 || base == 4) && inFragmented) {
                        if (!skipping && logical.size() > MAX_RECORD_BYTES - len) {
                            logical.reset();
                            logical = new ByteArrayOutputStream(); // let the large buffer go
                            skipping = true;
                            tooLarge.accept(firstBytes);
                        }
                        if (!skipping) {
                            logical.write(block, pos + header, len);
                        }
                        if (base == 4) {
                            if (!skipping) {
                                sink.accept(logical.toByteArray());
                            }
                            inFragmented = false;
                            skipping = false;
                        }
                    }
                    pos += header + len;
                }
                if (n < BLOCK) {
                    break;
                }
            }
        }
    }

    private static boolean crcOk(byte[] block, int pos, int header, int len) {
        CRC32C crc = new CRC32C();
        crc.update(block, pos + 6, 1 + (header - HEADER));
        crc.update(block, pos + header, len);
        int expected = (block[pos] & 0xFF)
                | (block[pos + 1] & 0xFF) << 8
                | (block[pos + 2] & 0xFF) << 16
                | (block[pos + 3] & 0xFF) << 24;
        return mask((int) crc.getValue()) == expected;
    }

    /**
     * The (key, value) pairs a WriteBatch ({@code db/write_batch.cc}: 8-byte sequence, 4-byte count, then tagged
     * entries) puts, added to {@code puts} as {@link #entry}; false if it holds an entry type this parser does not know
     * (then nothing can be concluded from it). Deletions and log data are skipped.
     */
    static boolean batchPuts(byte[] b, java.util.Set<java.nio.ByteBuffer> puts) {
        int[] pos = {12};
        try {
            while (pos[0] < b.length) {
                int tag = b[pos[0]++] & 0xFF;
                switch (tag) {
                    case 0x0, 0x7, 0x3 -> slice(b, pos); // deletion, single deletion, log data
                    case 0x1 -> puts.add(entry(slice(b, pos), slice(b, pos))); // value
                    case 0x4, 0x8 -> { // column family deletion, single deletion
                        varint(b, pos);
                        slice(b, pos);
                    }
                    case 0x5 -> { // column family value
                        varint(b, pos);
                        puts.add(entry(slice(b, pos), slice(b, pos)));
                    }
                    default -> {
                        return false; // merge, range deletion, transactions...: Sluice writes none of them
                    }
                }
            }
            return true;
        } catch (IndexOutOfBoundsException e) {
            return false;
        }
    }

    /** A (key, value) pair as one comparable buffer: 4-byte key length, key, value. */
    static java.nio.ByteBuffer entry(byte[] key, byte[] value) {
        java.nio.ByteBuffer e = java.nio.ByteBuffer.allocate(4 + key.length + value.length);
        e.putInt(key.length).put(key).put(value);
        return e.flip();
    }

    private static int varint(byte[] b, int[] pos) {
        int v = 0;
        for (int shift = 0; shift <= 28; shift += 7) {
            int x = b[pos[0]++] & 0xFF;
            v |= (x & 0x7F) << shift;
            if (x < 0x80) {
                return v;
            }
        }
        throw new IndexOutOfBoundsException("varint too long");
    }

    private static byte[] slice(byte[] b, int[] pos) {
        int len = varint(b, pos);
        if (len < 0 || pos[0] + len > b.length) {
            throw new IndexOutOfBoundsException("slice past the batch");
        }
        byte[] k = java.util.Arrays.copyOfRange(b, pos[0], pos[0] + len);
        pos[0] += len;
        return k;
    }

    /**
     * The offset in {@code block[from, n)} of the next intact record that starts a batch (a FULL or FIRST fragment whose
     * checksum holds and whose WriteBatch sequence number is at or just above {@code nextSequence}), or -1; -1 at once
     * when {@code nextSequence} is unknown.
     *
     * <p>Why: after a bad record (or zeros at a record header) RocksDB's reader drops the rest of the block, since the
     * damaged length cannot be trusted. Until 2026-11-28 this check did the same, so records after the damage in the
     * same block went unseen: in a WAL's last block a flipped byte followed by SYNC writes looked like a torn tail, the
     * store opened, and point-in-time recovery dropped those acknowledged writes silently (found by a damaged-store
     * probe: one bit flipped 2,000 bytes into a 10-KB WAL, 162 of 200 SYNC writes gone). What is found here only feeds
     * the damage rule (valid records after the bad spot); it is never replayed. A false match needs a 32-bit checksum
     * to hold by chance on a plausible header and sequence number, or a WAL record stored inside a value of a torn
     * record; either would refuse an open that could have gone ahead, never accept one that should not.
     */
    private static int resync(byte[] block, int from, int n, long nextSequence) {
        if (nextSequence < 0) {
            // no intact batch before the damage, in this WAL or the one before it: nothing bounds a false match (a
            // value holding another store's log bytes), so the rest of the block is left unseen, as RocksDB leaves it
            return -1;
        }
        for (int q = Math.max(from, 0); q + HEADER <= n; q++) {
            int type = block[q + 6] & 0xFF;
            if (type != 1 && type != 2 && type != 5 && type != 6) {
                continue;
            }
            int header = type >= 5 ? RECYCLABLE_HEADER : HEADER;
            int len = (block[q + 4] & 0xFF) | (block[q + 5] & 0xFF) << 8;
            if (len < 12 || q + header + len > n) {
                continue;
            }
            long seq = java.nio.ByteBuffer.wrap(block, q + header, 8)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .getLong();
            if (seq < nextSequence || seq - nextSequence > Integer.MAX_VALUE) {
                continue;
            }
            if (crcOk(block, q, header, len)) {
                return q;
            }
        }
        return -1;
    }

    /**
     * Whether the file from the bad record at {@code badAt} to its end has a crash's shape (nothing valid after it was
     * found): after the bad record's own extent, only zeros (a lost page, preallocated space; anything after zeros is
     * left alone, as the zero-hole rule leaves it), records that are well-formed — intact, or garbled with a zeroed page
     * in them — and a last one the end of the file cuts short. A bad record whose header cannot be (its length runs
     * past its block while the file goes on) must be followed by zeros only. A probe (2026-11-29) wrote 4 KiB of
     * random bytes over the end of a crashed store's WAL, or replaced the whole WAL with random bytes: both opened as a
     * torn tail, without an acknowledged SYNC write and thousands of others, and the WAL was deleted.
     */
    static boolean crashShapedTail(Path wal, long badAt) throws IOException {
        try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(wal)) {
            long size = ch.size();
            long blockStart = badAt / BLOCK * BLOCK;
            int pos = (int) (badAt - blockStart);
            byte[] block = new byte[BLOCK];
            boolean first = true;
            while (blockStart < size) {
                int n = readBlock(ch, blockStart, block);
                boolean last = blockStart + n >= size;
                while (true) {
                    if (pos + HEADER > n) {
                        if (last) {
                            return true; // a header cut by the end of the file
                        }
                        if (!isZero(block, pos, n)) {
                            return false; // RocksDB pads a block's tail with zeros
                        }
                        break;
                    }
                    if (isZero(block, pos, pos + HEADER)) {
                        return true;
                    }
                    int len = (block[pos + 4] & 0xFF) | (block[pos + 5] & 0xFF) << 8;
                    int type = block[pos + 6] & 0xFF;
                    boolean known = type >= 1 && type <= 11;
                    int header = type >= 5 && type <= 8 || type == 11 ? RECYCLABLE_HEADER : HEADER;
                    int end = pos + header + len;
                    if (known && end > n && last) {
                        return true; // a record the end of the file cuts short
                    }
                    if (!known || end > n) {
                        // a header RocksDB cannot have written: all that follows must be zeros (a torn header)
                        return first && zerosFrom(ch, blockStart + pos + HEADER, size, block);
                    }
                    if (!first && !crcOk(block, pos, header, len) && !tornShape(block, pos + header, end)) {
                        return false; // a second garbled record, without a lost page in it
                    }
                    first = false;
                    pos = end;
                }
                blockStart += BLOCK;
                pos = 0;
            }
            return true;
        }
    }

    private static int readBlock(java.nio.channels.SeekableByteChannel ch, long at, byte[] block) throws IOException {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(block);
        ch.position(at);
        while (buf.hasRemaining() && ch.read(buf) > 0) {
            // fill the block
        }
        return buf.position();
    }

    private static boolean zerosFrom(java.nio.channels.SeekableByteChannel ch, long from, long size, byte[] block)
            throws IOException {
        for (long at = from; at < size; at += BLOCK) {
            int n = readBlock(ch, at, block);
            if (!isZero(block, 0, n)) {
                return false;
            }
            if (n == 0) {
                break;
            }
        }
        return true;
    }

    /** Whether the bad record {@code [from, to)} of the block holds a 4 KiB-aligned page (or its part in the record) of zeros. */
    private static boolean hasZeroPage(byte[] block, int from, int to) {
        // blocks are 32 KiB-aligned in the file, so block-relative page alignment is file page alignment
        for (int p = (from + PAGE - 1) / PAGE * PAGE; p < to; p += PAGE) {
            if (isZero(block, p, Math.min(to, p + PAGE))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a record's bytes {@code [from, to)} have the shape a crash leaves in a write it cut short: a 4 KiB page of
     * the file that the record overlaps by 8 bytes or more reads as zeros over that overlap (its content never reached
     * the disk while the file's size did).
     */
    private static boolean tornShape(byte[] block, int from, int to) {
        for (int p = from / PAGE * PAGE; p < to; p += PAGE) {
            int a = Math.max(from, p);
            int b = Math.min(to, p + PAGE);
            if (b - a >= 8 && isZero(block, a, b)) {
                return true;
            }
        }
        return false;
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
