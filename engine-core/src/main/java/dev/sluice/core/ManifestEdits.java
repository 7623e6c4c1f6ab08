package dev.sluice.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The SST files a RocksDB MANIFEST records as deleted: a committed compaction lists its inputs
 * there. Read so that the open-time check can tell a compaction's obsolete input — which a {@code kill -9} leaves on disk
 * when it lands after the compaction's edit reached the MANIFEST and before RocksDB unlinked the inputs — from a file
 * whose committed edit the MANIFEST lost (see {@link StoreCheck}'s orphan rule). A file the MANIFEST added and then
 * deleted was committed and then superseded; an edit lost from a damaged MANIFEST cannot have been followed by a
 * recorded deletion of the same file, since edits are appended in order and file numbers are never reused.
 *
 * <p>Format (RocksDB 9.10 {@code db/version_edit.cc}, {@code VersionEdit::EncodeTo}): the MANIFEST is a log file in
 * the WAL's record format ({@link WalCheck#forEachRecord}); each logical record is one VersionEdit, a sequence of
 * varint32 tags, each followed by its fields. A record is used only when every one of its tags decodes (an unknown tag
 * without the "safe to ignore" bit, or a field running past the record, drops the whole record: a deletion read from a
 * misparsed record could mark lost data as obsolete). The MANIFESTs up to the one {@code CURRENT} names are read in order
 * (an older one an open cut short by a crash may have left, then the current one); a number added again after its
 * deletion (a trivial move deletes and adds one file in one edit) is not deleted.
 */
final class ManifestEdits {
    private ManifestEdits() {}

    // Tags (db/version_edit.h)
    private static final int COMPARATOR = 1,
            LOG_NUMBER = 2,
            NEXT_FILE = 3,
            LAST_SEQUENCE = 4,
            COMPACT_CURSOR = 5,
            DELETED_FILE = 6,
            NEW_FILE = 7,
            PREV_LOG_NUMBER = 9,
            MIN_LOG_TO_KEEP = 10,
            NEW_FILE2 = 100,
            NEW_FILE3 = 102,
            NEW_FILE4 = 103,
            COLUMN_FAMILY = 200,
            COLUMN_FAMILY_ADD = 201,
            COLUMN_FAMILY_DROP = 202,
            MAX_COLUMN_FAMILY = 203,
            IN_ATOMIC_GROUP = 300,
            SAFE_IGNORE_MASK = 1 << 13,
            NEW_FILE4_TERMINATE = 1;
    // forward-compatible tags after the mask (kDbId = mask + 1, ...) whose fields are not length-prefixed
    private static final int OLD_BLOB_ADDITION = SAFE_IGNORE_MASK + 2,
            OLD_BLOB_GARBAGE = SAFE_IGNORE_MASK + 3,
            OLD_WAL_ADDITION = SAFE_IGNORE_MASK + 4,
            OLD_WAL_DELETION = SAFE_IGNORE_MASK + 5;

    /**
     * One VersionEdit's file changes, and its WAL number: {@code logNumber} is the {@code kLogNumber} field (WALs
     * numbered below it hold nothing the column family has not flushed), -1 when absent; {@code columnFamily} the
     * {@code kColumnFamily} the edit applies to (0, the default one, when absent); {@code columnFamilyChange} whether it
     * adds or drops a column family; {@code atomicGroup} whether it is part of an atomic group (RocksDB drops an
     * incomplete trailing group; Sluice never sets atomic_flush, so such an edit makes the log number unsure).
     */
    record Edit(
            Set<Long> deleted,
            Set<Long> added,
            long logNumber,
            long lastSequence,
            long columnFamily,
            boolean columnFamilyChange,
            boolean atomicGroup) {}

    /**
     * File numbers the MANIFESTs of {@code dir} leave deleted: their edits (fully decoded ones only) applied in order,
     * MANIFEST by MANIFEST up to the one {@code CURRENT} names, a deletion undone by a later (or the same) edit that adds
     * the number again — a trivial move or a level refit deletes and adds one file in one edit, and a new MANIFEST
     * starts with the live files. A MANIFEST numbered above CURRENT's was never committed and is not read.
     */
    static Set<Long> deletedFiles(Path dir) throws IOException {
        Set<Long> deleted = new HashSet<>();
        for (Path m : manifests(dir).values()) {
            WalCheck.forEachRecord(m, bytes -> {
                Edit e = decode(bytes);
                if (e != null) {
                    deleted.addAll(e.deleted());
                    deleted.removeAll(e.added());
                }
            });
        }
        return deleted;
    }

    /**
     * The lowest WAL number RocksDB replays at open, as the MANIFESTs up to {@code CURRENT}'s record it: the default
     * column family's latest {@code kLogNumber}. RocksDB 9.10 ({@code DBImpl::RecoverLogFiles}, non-2PC) skips every
     * WAL numbered below the smallest log number of the live column families and deletes it after the open; such a WAL
     * is one whose memtable was flushed before a crash cut the flush short of unlinking it. Returns 0 (every WAL counts)
     * when no edit gives a number, and also when a record does not decode or names a column family other than the
     * default one (Sluice never creates one): then the number is not known for sure, and checking one WAL too many is
     * the safe mistake.
     */
    static long liveWalFloor(Path dir) throws IOException {
        long[] floor = {0};
        boolean[] unsure = {false};
        for (Path m : manifests(dir).values()) {
            WalCheck.forEachRecord(
                    m,
                    bytes -> {
                        Edit e = decode(bytes);
                        if (e == null || e.columnFamily() != 0 || e.columnFamilyChange() || e.atomicGroup()) {
                            unsure[0] = true;
                        } else if (e.logNumber() >= 0) {
                            floor[0] = e.logNumber(); // edits are applied in order: the latest one holds
                        }
                    },
                    header -> unsure[0] = true); // a record too large to read: what it says is not known
        }
        return unsure[0] ? 0 : floor[0];
    }

    /**
     * The largest sequence number the MANIFESTs up to {@code CURRENT}'s record ({@code kLastSequence}): every write
     * numbered at or below it was made before the last edit that survives, so it is in a live SST or in a WAL RocksDB
     * replays (or was dropped by a compaction as overwritten). A write numbered above it that an SST holds came from a
     * flush or compaction whose edit is not in the MANIFEST. Returns -1 when that cannot be told for sure: no edit gives
     * it, or a record does not decode (its sequence could be larger), or is too large to read.
     */
    static long lastSequence(Path dir) throws IOException {
        long[] last = {-1};
        boolean[] unsure = {false};
        for (Path m : manifests(dir).values()) {
            WalCheck.forEachRecord(
                    m,
                    bytes -> {
                        Edit e = decode(bytes);
                        if (e == null) {
                            unsure[0] = true;
                        } else {
                            last[0] = Math.max(last[0], e.lastSequence());
                        }
                    },
                    header -> unsure[0] = true);
        }
        return unsure[0] ? -1 : last[0];
    }

    /** The MANIFESTs of {@code dir} numbered up to the one {@code CURRENT} names, in order. */
    private static java.util.TreeMap<Long, Path> manifests(Path dir) throws IOException {
        long current = currentManifest(dir);
        java.util.TreeMap<Long, Path> manifests = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> Files.isRegularFile(p)).forEach(p -> {
                long n = manifestNumber(p.getFileName().toString());
                if (n >= 0 && n <= current) {
                    manifests.put(n, p);
                }
            });
        }
        return manifests;
    }

    /** The number of the MANIFEST {@code CURRENT} names; -1 (read none) when it cannot be told. */
    private static long currentManifest(Path dir) throws IOException {
        Path current = dir.resolve("CURRENT");
        if (!Files.isRegularFile(current)) {
            return -1;
        }
        return manifestNumber(Files.readString(current, java.nio.charset.StandardCharsets.ISO_8859_1)
                .strip());
    }

    private static long manifestNumber(String name) {
        if (!name.startsWith("MANIFEST-")) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring("MANIFEST-".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The deleted file numbers of one VersionEdit (before the same edit's additions are applied), or null. */
    static Set<Long> decodeDeletions(byte[] edit) {
        Edit e = decode(edit);
        return e == null ? null : e.deleted();
    }

    /** One VersionEdit's deleted and added file numbers, or null when any part of it does not decode. */
    static Edit decode(byte[] edit) {
        Set<Long> out = new HashSet<>();
        Set<Long> added = new HashSet<>();
        long logNumber = -1;
        long lastSequence = -1;
        long columnFamily = 0;
        boolean columnFamilyChange = false;
        boolean atomicGroup = false;
        int[] pos = {0};
        try {
            while (pos[0] < edit.length) {
                long tag = varint(edit, pos);
                switch ((int) tag) {
                    case LOG_NUMBER -> logNumber = varint(edit, pos);
                    case LAST_SEQUENCE -> lastSequence = varint(edit, pos);
                    case NEXT_FILE, PREV_LOG_NUMBER, MIN_LOG_TO_KEEP -> varint(edit, pos);
                    case COLUMN_FAMILY -> columnFamily = varint(edit, pos);
                    case MAX_COLUMN_FAMILY -> varint(edit, pos);
                    case IN_ATOMIC_GROUP -> {
                        varint(edit, pos); // remaining entries of the group
                        atomicGroup = true;
                    }
                    case COMPARATOR -> slice(edit, pos);
                    case COLUMN_FAMILY_ADD -> {
                        slice(edit, pos); // name
                        columnFamilyChange = true;
                    }
                    case COLUMN_FAMILY_DROP -> columnFamilyChange = true; // no fields
                    case COMPACT_CURSOR -> {
                        varint(edit, pos); // level
                        slice(edit, pos); // internal key
                    }
                    case DELETED_FILE -> {
                        varint(edit, pos); // level
                        out.add(varint(edit, pos));
                    }
                    case NEW_FILE, NEW_FILE2, NEW_FILE3 -> {
                        varint(edit, pos); // level
                        added.add(varint(edit, pos)); // number
                        if (tag == NEW_FILE3) {
                            varint(edit, pos); // path id
                        }
                        varint(edit, pos); // size
                        slice(edit, pos); // smallest
                        slice(edit, pos); // largest
                        if (tag != NEW_FILE) {
                            varint(edit, pos); // smallest seqno
                            varint(edit, pos); // largest seqno
                        }
                    }
                    case NEW_FILE4 -> {
                        varint(edit, pos); // level
                        added.add(varint(edit, pos)); // number
                        varint(edit, pos); // size
                        slice(edit, pos); // smallest
                        slice(edit, pos); // largest
                        varint(edit, pos); // smallest seqno
                        varint(edit, pos); // largest seqno
                        while (varint(edit, pos) != NEW_FILE4_TERMINATE) {
                            slice(edit, pos); // a custom field
                        }
                    }
                    case OLD_BLOB_ADDITION, OLD_BLOB_GARBAGE, OLD_WAL_ADDITION, OLD_WAL_DELETION -> {
                        return null; // ignorable, but not length-prefixed (older formats): not skipped safely
                    }
                    default -> {
                        if ((tag & SAFE_IGNORE_MASK) == 0) {
                            return null; // blob files, or a tag this reader does not know: not understood
                        }
                        slice(edit, pos); // forward-compatible records are length-prefixed
                    }
                }
            }
            return pos[0] == edit.length
                    ? new Edit(out, added, logNumber, lastSequence, columnFamily, columnFamilyChange, atomicGroup)
                    : null;
        } catch (IndexOutOfBoundsException e) {
            return null;
        }
    }

    private static long varint(byte[] b, int[] pos) {
        return varint64(b, pos, b.length);
    }

    /** A varint64 at {@code pos} ending before {@code limit} (MANIFEST edits, and SST blocks: {@link SstProperties}). */
    static long varint64(byte[] b, int[] pos, int limit) {
        long v = 0;
        for (int shift = 0; shift <= 63; shift += 7) {
            if (pos[0] >= limit) {
                throw new IndexOutOfBoundsException("varint past its end");
            }
            int x = b[pos[0]++] & 0xFF;
            v |= (long) (x & 0x7F) << shift;
            if (x < 0x80) {
                return v;
            }
        }
        throw new IndexOutOfBoundsException("varint too long");
    }

    private static void slice(byte[] b, int[] pos) {
        long len = varint(b, pos);
        if (len < 0 || pos[0] + len > b.length) {
            throw new IndexOutOfBoundsException("field past the edit");
        }
        pos[0] += (int) len;
    }
}
