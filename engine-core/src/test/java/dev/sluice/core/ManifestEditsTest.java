package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** {@link ManifestEdits#decodeDeletions} on VersionEdits encoded as RocksDB 9.10's VersionEdit::EncodeTo does. */
class ManifestEditsTest {
    private static void varint(ByteArrayOutputStream o, long v) {
        while (v >= 0x80) {
            o.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        o.write((int) v);
    }

    private static void slice(ByteArrayOutputStream o, byte[] b) {
        varint(o, b.length);
        o.writeBytes(b);
    }

    /** A compaction's edit: log numbers, two deleted inputs, one NewFile4 output with custom fields, last sequence. */
    private static ByteArrayOutputStream compactionEdit() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        varint(o, 8193); // kDbId (forward compatible, length-prefixed)
        slice(o, "some-db-id".getBytes());
        varint(o, 2); // kLogNumber
        varint(o, 12);
        varint(o, 3); // kNextFileNumber
        varint(o, 150);
        varint(o, 6); // kDeletedFile level 0 #127
        varint(o, 0);
        varint(o, 127);
        varint(o, 6); // kDeletedFile level 1 #1000000 (a multi-byte varint)
        varint(o, 1);
        varint(o, 1_000_000);
        varint(o, 103); // kNewFile4 level 1 #146
        varint(o, 1);
        varint(o, 146);
        varint(o, 123_456); // size
        slice(o, "k0001\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000".getBytes());
        slice(o, "k0999\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000".getBytes());
        varint(o, 5); // smallest seqno
        varint(o, 900); // largest seqno
        varint(o, 2); // custom field: kNeedCompaction
        slice(o, new byte[] {1});
        varint(o, 6); // custom field: oldest ancester time
        slice(o, new byte[] {(byte) 0x85, 0x01});
        varint(o, 1); // kTerminate
        varint(o, 4); // kLastSequence
        varint(o, 900);
        return o;
    }

    @Test
    void aCompactionsEditYieldsItsDeletedInputs() {
        assertThat(ManifestEdits.decodeDeletions(compactionEdit().toByteArray()))
                .containsExactlyInAnyOrder(127L, 1_000_000L);
    }

    @Test
    void anEditThatDoesNotDecodeWhollyYieldsNothing() {
        ByteArrayOutputStream o = compactionEdit();
        byte[] cut = java.util.Arrays.copyOf(o.toByteArray(), o.size() - 1); // its last field cut
        assertThat(ManifestEdits.decodeDeletions(cut)).isNull();
        ByteArrayOutputStream unknown = compactionEdit();
        varint(unknown, 400); // kBlobFileAddition: not read by this decoder
        varint(unknown, 7);
        assertThat(ManifestEdits.decodeDeletions(unknown.toByteArray())).isNull();
        ByteArrayOutputStream oldWal = compactionEdit();
        varint(oldWal, 8192 + 4); // kWalAddition (not length-prefixed)
        varint(oldWal, 9);
        assertThat(ManifestEdits.decodeDeletions(oldWal.toByteArray())).isNull();
    }

    @Test
    void forwardCompatibleTagsAreSkippedByTheirLength() {
        ByteArrayOutputStream o = compactionEdit();
        varint(o, 8192 + 7); // kWalAddition2
        slice(o, new byte[] {6, 127, 6, 1}); // bytes that would read as deletions if not skipped
        assertThat(ManifestEdits.decodeDeletions(o.toByteArray())).containsExactlyInAnyOrder(127L, 1_000_000L);
    }

    /**
     * A trivial move deletes and adds the same file in one edit: the file stays live (a review, 2026-11-28: counting
     * it as deleted would let an orphan holding the only copy of data pass as an obsolete input).
     */
    @Test
    void aFileDeletedAndAddedInOneEditIsNotDeleted() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        varint(o, 6); // kDeletedFile level 0 #42
        varint(o, 0);
        varint(o, 42);
        varint(o, 103); // kNewFile4 level 1 #42
        varint(o, 1);
        varint(o, 42);
        varint(o, 1000);
        slice(o, "a\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000".getBytes());
        slice(o, "b\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000".getBytes());
        varint(o, 1);
        varint(o, 2);
        varint(o, 1); // kTerminate
        ManifestEdits.Edit e = ManifestEdits.decode(o.toByteArray());
        assertThat(e.deleted()).containsExactly(42L);
        assertThat(e.added()).containsExactly(42L); // deletedFiles applies the additions after the deletions
    }

    @Test
    void anEditCarriesItsLogNumberAndColumnFamily() {
        ManifestEdits.Edit e = ManifestEdits.decode(compactionEdit().toByteArray());
        assertThat(e.logNumber()).isEqualTo(12);
        assertThat(e.columnFamily()).as("absent: the default column family").isZero();
        assertThat(e.columnFamilyChange()).isFalse();
        ByteArrayOutputStream other = new ByteArrayOutputStream();
        varint(other, 200); // kColumnFamily 3
        varint(other, 3);
        varint(other, 2); // kLogNumber
        varint(other, 40);
        assertThat(ManifestEdits.decode(other.toByteArray()).columnFamily()).isEqualTo(3);
        ByteArrayOutputStream add = new ByteArrayOutputStream();
        varint(add, 201); // kColumnFamilyAdd "cf1"
        slice(add, "cf1".getBytes());
        varint(add, 200);
        varint(add, 1);
        assertThat(ManifestEdits.decode(add.toByteArray()).columnFamilyChange()).isTrue();
        assertThat(ManifestEdits.decode(new byte[0]).logNumber())
                .as("no kLogNumber")
                .isEqualTo(-1);
    }
}
