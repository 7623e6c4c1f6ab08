package dev.sluice.ycsb;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Encodes the fields of one YCSB record into one stored value, and back.
 *
 * <h2>Format, version 1</h2>
 *
 * <pre>
 * record  := version:u8 (= 0x01)  count:varint  field{count}
 * field   := nameLength:varint  name:UTF-8 bytes  valueLength:varint  value:bytes
 * varint  := unsigned LEB128 (7 bits per byte, low bits first, high bit = more), 1 to 5 bytes, value ≤ 2^31 − 1
 * </pre>
 *
 * Field names are unique within a record. Fields are written in the iteration order of the map given to {@link
 * #encode}; {@link #merge} keeps the stored order and appends new names. A YCSB default record (10 fields named {@code
 * field0}..{@code field9} of 100 bytes) takes 2 + 10 × (1 + 6 + 1 + 100) = 1082 bytes: 8 % over the raw field bytes.
 *
 * <p>Decoding is strict: a wrong version byte, a truncated value, a malformed varint, invalid UTF-8 in a name, a
 * duplicate name or trailing bytes throw {@link RecordFormatException} naming the byte offset — never another exception,
 * and never a partially decoded record. There is no checksum: RocksDB checksums the blocks that hold the values.
 *
 * <p>Thread-safety: stateless; all methods may be called concurrently.
 */
public final class RecordCodec {
    /** The version byte this codec writes and the only one it reads. */
    public static final int VERSION = 1;

    private static final int MAX_VARINT_BYTES = 5;

    private RecordCodec() {}

    /** Encodes {@code fields} (name → value; neither may be null). */
    public static byte[] encode(Map<String, byte[]> fields) {
        byte[][] names = new byte[fields.size()][];
        int size = 1 + varintSize(fields.size());
        int i = 0;
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("record field names and values must not be null");
            }
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            names[i++] = name;
            size = Math.addExact(size, varintSize(name.length) + name.length);
            size = Math.addExact(size, varintSize(e.getValue().length) + e.getValue().length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put((byte) VERSION);
        putVarint(out, fields.size());
        i = 0;
        for (byte[] value : fields.values()) {
            byte[] name = names[i++];
            putVarint(out, name.length);
            out.put(name);
            putVarint(out, value.length);
            out.put(value);
        }
        return out.array();
    }

    /** All fields of an encoded record, in stored order. */
    public static LinkedHashMap<String, byte[]> decode(byte[] record) {
        return decode(record, null);
    }

    /**
     * The fields named in {@code wanted} (all fields when {@code wanted} is null), in stored order. Names in {@code
     * wanted} that the record lacks are absent from the result. The whole record is validated either way.
     */
    public static LinkedHashMap<String, byte[]> decode(byte[] record, Set<String> wanted) {
        Reader r = new Reader(record);
        int count = r.header();
        LinkedHashMap<String, byte[]> out = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        for (int f = 0; f < count; f++) {
            int at = r.pos;
            String name = r.name();
            if (!names.add(name)) {
                throw new RecordFormatException("field '" + name + "' appears twice (second at offset " + at + ")");
            }
            int valueLength = r.length("value of field '" + name + "'");
            if (wanted == null || wanted.contains(name)) {
                out.put(name, Arrays.copyOfRange(record, r.pos, r.pos + valueLength));
            }
            r.pos += valueLength;
        }
        r.requireEnd();
        return out;
    }

    /**
     * Applies an update: the stored record with each field of {@code updates} replaced or added. Fields not in {@code
     * updates} keep their stored value (YCSB update semantics).
     */
    public static byte[] merge(byte[] stored, Map<String, byte[]> updates) {
        LinkedHashMap<String, byte[]> fields = decode(stored);
        fields.putAll(updates);
        return encode(fields);
    }

    static int varintSize(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative length " + v);
        }
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static void putVarint(ByteBuffer out, int v) {
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** A cursor over one encoded record; every read checks bounds and reports the offset on failure. */
    private static final class Reader {
        private final byte[] buf;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int pos;

        Reader(byte[] buf) {
            if (buf == null) {
                throw new RecordFormatException("record is null");
            }
            this.buf = buf;
        }

        int header() {
            if (buf.length == 0) {
                throw new RecordFormatException("record is empty (expected a version byte)");
            }
            int version = buf[0] & 0xFF;
            if (version != VERSION) {
                throw new RecordFormatException(
                        "unsupported record format version " + version + " (this binding reads version " + VERSION
                                + "); was the store written by something other than the Sluice YCSB binding?");
            }
            pos = 1;
            int count = varint("field count");
            // Every field takes at least two bytes (two empty lengths): a larger count cannot be valid.
            if (count > (buf.length - pos) / 2) {
                throw new RecordFormatException("field count " + count + " at offset 1 exceeds what the remaining "
                        + (buf.length - pos) + " bytes can hold");
            }
            return count;
        }

        String name() {
            int at = pos;
            int length = length("field name");
            try {
                CharBuffer chars = utf8.decode(ByteBuffer.wrap(buf, pos, length));
                pos += length;
                return chars.toString();
            } catch (CharacterCodingException e) {
                throw new RecordFormatException("field name at offset " + at + " is not valid UTF-8");
            }
        }

        /** A length prefix that must fit in the remaining bytes. */
        int length(String what) {
            int at = pos;
            int length = varint(what + " length");
            if (length > buf.length - pos) {
                throw new RecordFormatException(what + " at offset " + at + " declares " + length + " bytes but only "
                        + (buf.length - pos) + " remain (truncated record?)");
            }
            return length;
        }

        int varint(String what) {
            int at = pos;
            int v = 0;
            for (int i = 0; i < MAX_VARINT_BYTES; i++) {
                if (pos >= buf.length) {
                    throw new RecordFormatException(what + " at offset " + at + " is truncated");
                }
                int b = buf[pos++] & 0xFF;
                if (i == MAX_VARINT_BYTES - 1 && (b & 0xF8) != 0) {
                    throw new RecordFormatException(what + " at offset " + at + " exceeds 2^31 - 1");
                }
                v |= (b & 0x7F) << (7 * i);
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new AssertionError("unreachable");
        }

        void requireEnd() {
            if (pos != buf.length) {
                throw new RecordFormatException(
                        (buf.length - pos) + " unexpected trailing bytes at offset " + pos + " after the last field");
            }
        }
    }
}
