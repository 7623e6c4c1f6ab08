package dev.sluice.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads an SST file's properties block directly, for what rocksdbjni 9.10's {@code TableProperties} does not expose:
 * {@code rocksdb.key.largest.seqno}, the largest sequence number of the table's entries (tombstones included), which
 * RocksDB 9.10 writes into every table it builds. {@link StoreCheck} uses it to tell an orphan SST that holds writes the
 * store has no other record of (a lost flush) even when those writes are deletions, which an SST iterator hides.
 *
 * <p>Format (RocksDB's {@code table/format.cc}, block-based tables): the file ends with a 53-byte footer — checksum type
 * (1 byte), then either the metaindex block's handle (format versions 1–5: two varints, offset and size) or, from
 * format version 6, an extended magic, a footer checksum, a base context checksum and the metaindex block's size (each
 * 4 bytes; the metaindex block then ends right before the footer, followed by its 5-byte trailer) — padding, the format
 * version (fixed32) and the table magic number (fixed64). The metaindex block maps {@code rocksdb.properties} to the
 * properties block's handle; both blocks are stored uncompressed. A block is a run of entries (varint32 shared key
 * bytes, varint32 unshared, varint32 value length, key suffix, value) followed by its restart array and their count.
 *
 * <p>Anything unexpected (another table format, a legacy footer, a compressed meta block, sizes out of range, a varint
 * past its block) gives an empty result, never an exception: the caller then falls back to what it can check without.
 */
final class SstProperties {
    private SstProperties() {}

    static final String KEY_LARGEST_SEQNO = "rocksdb.key.largest.seqno";
    private static final long BLOCK_BASED_MAGIC = 0x88e241b785f4cff7L;
    private static final int FOOTER = 53;
    private static final int TRAILER = 5;
    private static final int MAX_META_BLOCK = 4 << 20;

    /** The table's {@code rocksdb.key.largest.seqno}, or empty when the file does not say (or cannot be read so). */
    static OptionalLong largestSeqno(Path sst) {
        Map<String, byte[]> props = read(sst);
        byte[] v = props.get(KEY_LARGEST_SEQNO);
        if (v == null) {
            return OptionalLong.empty();
        }
        int[] pos = {0};
        try {
            long n = ManifestEdits.varint64(v, pos, v.length);
            return pos[0] == v.length ? OptionalLong.of(n) : OptionalLong.empty();
        } catch (IndexOutOfBoundsException e) {
            return OptionalLong.empty();
        }
    }

    /** Every property of the table, raw; empty when the file is not a block-based table this reader understands. */
    static Map<String, byte[]> read(Path sst) {
        try (FileChannel ch = FileChannel.open(sst, StandardOpenOption.READ)) {
            long length = ch.size();
            if (length < FOOTER) {
                return Map.of();
            }
            ByteBuffer footer = readAt(ch, length - FOOTER, FOOTER);
            if (footer == null || footer.getLong(FOOTER - 8) != BLOCK_BASED_MAGIC) {
                return Map.of();
            }
            int version = footer.getInt(FOOTER - 12);
            long metaOffset;
            long metaSize;
            if (version >= 6) {
                metaSize = footer.getInt(1 + 4 + 4 + 4) & 0xFFFFFFFFL;
                metaOffset = length - FOOTER - TRAILER - metaSize;
            } else if (version >= 1) {
                byte[] f = new byte[FOOTER];
                footer.get(0, f);
                int[] pos = {1};
                metaOffset = ManifestEdits.varint64(f, pos, FOOTER - 12);
                metaSize = ManifestEdits.varint64(f, pos, FOOTER - 12);
            } else {
                return Map.of();
            }
            Map<String, byte[]> meta = block(ch, metaOffset, metaSize, length);
            byte[] handle = meta.get("rocksdb.properties");
            if (handle == null) {
                return Map.of();
            }
            int[] pos = {0};
            long propsOffset = ManifestEdits.varint64(handle, pos, handle.length);
            long propsSize = ManifestEdits.varint64(handle, pos, handle.length);
            return block(ch, propsOffset, propsSize, length);
        } catch (IOException | IndexOutOfBoundsException | IllegalArgumentException e) {
            return Map.of();
        }
    }

    /** The entries of an uncompressed block at {@code offset} of {@code size} bytes (its trailer after it). */
    private static Map<String, byte[]> block(FileChannel ch, long offset, long size, long length) throws IOException {
        if (offset < 0 || size < 4 || size > MAX_META_BLOCK || offset + size + TRAILER > length) {
            return Map.of();
        }
        ByteBuffer buf = readAt(ch, offset, (int) size + TRAILER);
        if (buf == null || buf.get((int) size) != 0) { // the trailer's compression type: 0 = none
            return Map.of();
        }
        byte[] b = new byte[(int) size];
        buf.get(0, b);
        long restarts = ByteBuffer.wrap(b, b.length - 4, 4)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .getInt()
                & 0x7FFFFFFFL;
        long end = b.length - 4 - 4 * restarts;
        if (end < 0) {
            return Map.of();
        }
        Map<String, byte[]> out = new HashMap<>();
        byte[] last = new byte[0];
        int[] pos = {0};
        while (pos[0] < end) {
            int limit = (int) end;
            int shared = (int) ManifestEdits.varint64(b, pos, limit);
            int unshared = (int) ManifestEdits.varint64(b, pos, limit);
            int valueLength = (int) ManifestEdits.varint64(b, pos, limit);
            if (shared < 0
                    || shared > last.length
                    || unshared < 0
                    || valueLength < 0
                    || (long) pos[0] + unshared + valueLength > end) {
                return Map.of();
            }
            byte[] key = new byte[shared + unshared];
            System.arraycopy(last, 0, key, 0, shared);
            System.arraycopy(b, pos[0], key, shared, unshared);
            pos[0] += unshared;
            out.put(
                    new String(key, java.nio.charset.StandardCharsets.ISO_8859_1),
                    java.util.Arrays.copyOfRange(b, pos[0], pos[0] + valueLength));
            pos[0] += valueLength;
            last = key;
        }
        return out;
    }

    private static ByteBuffer readAt(FileChannel ch, long offset, int n) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        while (buf.hasRemaining()) {
            if (ch.read(buf, offset + buf.position()) < 0) {
                return null;
            }
        }
        return buf.flip();
    }
}
