package dev.sluice.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class RecordCodecTest {

    // ---- examples: the documented layout, byte for byte ----

    @Test
    void encodesTheDocumentedLayout() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("f", new byte[] {7, 8});
        fields.put("g", new byte[0]);
        assertThat(RecordCodec.encode(fields))
                .containsExactly(
                        1, // version
                        2, // field count
                        1, 'f', 2, 7, 8, // name length, name, value length, value
                        1, 'g', 0);
    }

    @Test
    void defaultYcsbRecordTakes1082Bytes() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            fields.put("field" + i, new byte[100]);
        }
        assertThat(RecordCodec.encode(fields)).hasSize(1082);
    }

    @Test
    void longValuesUseMultiByteVarints() {
        byte[] big = new byte[300]; // 300 = 0b1_0010_1100 → 0xAC 0x02
        Arrays.fill(big, (byte) 5);
        byte[] enc = RecordCodec.encode(Map.of("v", big));
        assertThat(Arrays.copyOfRange(enc, 0, 6)).containsExactly(1, 1, 1, 'v', 0xAC, 0x02);
        assertThat(RecordCodec.decode(enc).get("v")).isEqualTo(big);
    }

    @Test
    void mergeReplacesGivenFieldsKeepsOthersAndAppendsNewOnes() {
        Map<String, byte[]> stored = new LinkedHashMap<>();
        stored.put("a", bytes("1"));
        stored.put("b", bytes("2"));
        stored.put("c", bytes("3"));
        Map<String, byte[]> update = new LinkedHashMap<>();
        update.put("b", bytes("two"));
        update.put("d", bytes("4"));

        LinkedHashMap<String, byte[]> merged =
                RecordCodec.decode(RecordCodec.merge(RecordCodec.encode(stored), update));

        assertThat(merged.keySet()).containsExactly("a", "b", "c", "d");
        assertThat(text(merged))
                .containsEntry("a", "1")
                .containsEntry("b", "two")
                .containsEntry("c", "3");
    }

    @Test
    void subsetReturnsOnlyRequestedFieldsThatExist() {
        Map<String, byte[]> stored = new LinkedHashMap<>();
        stored.put("a", bytes("1"));
        stored.put("b", bytes("2"));
        byte[] enc = RecordCodec.encode(stored);

        assertThat(text(RecordCodec.decode(enc, Set.of("b", "zzz")))).isEqualTo(Map.of("b", "2"));
        assertThat(RecordCodec.decode(enc, Set.of())).isEmpty();
    }

    // ---- corrupt input: one clear exception naming the problem ----

    @Test
    void rejectsEmptyAndUnknownVersion() {
        assertThatThrownBy(() -> RecordCodec.decode(new byte[0]))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> RecordCodec.decode(new byte[] {2, 0}))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("unsupported record format version 2");
        // e.g. a raw string written by another tool
        assertThatThrownBy(() -> RecordCodec.decode(bytes("hello")))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("version 104");
    }

    @Test
    void rejectsTruncatedValueNamingTheOffset() {
        byte[] enc = RecordCodec.encode(Map.of("name", bytes("value")));
        byte[] cut = Arrays.copyOf(enc, enc.length - 2);
        assertThatThrownBy(() -> RecordCodec.decode(cut))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("value of field 'name' at offset 7 declares 5 bytes but only 3 remain");
    }

    @Test
    void rejectsTrailingBytesDuplicatesBadUtf8AndOverlongVarints() {
        byte[] enc = RecordCodec.encode(Map.of("a", bytes("1")));
        byte[] trailing = Arrays.copyOf(enc, enc.length + 1);
        assertThatThrownBy(() -> RecordCodec.decode(trailing)).hasMessageContaining("1 unexpected trailing bytes");

        byte[] dup = {1, 2, 1, 'a', 0, 1, 'a', 0};
        assertThatThrownBy(() -> RecordCodec.decode(dup))
                .isInstanceOf(RecordFormatException.class)
                .hasMessageContaining("field 'a' appears twice");
        // a duplicate is an error even when the caller asked for other fields only
        assertThatThrownBy(() -> RecordCodec.decode(dup, Set.of("b"))).isInstanceOf(RecordFormatException.class);

        byte[] badUtf8 = {1, 1, 1, (byte) 0xC3, 0};
        assertThatThrownBy(() -> RecordCodec.decode(badUtf8)).hasMessageContaining("not valid UTF-8");

        byte[] overlong = {1, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x0F, 0};
        assertThatThrownBy(() -> RecordCodec.decode(overlong)).hasMessageContaining("exceeds 2^31 - 1");

        byte[] hugeCount = {1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F};
        assertThatThrownBy(() -> RecordCodec.decode(hugeCount)).hasMessageContaining("field count");
    }

    // ---- properties ----

    @Property
    void roundTrip(@ForAll("records") Map<String, byte[]> fields) {
        LinkedHashMap<String, byte[]> decoded = RecordCodec.decode(RecordCodec.encode(fields));
        assertThat(decoded.keySet()).containsExactlyElementsOf(fields.keySet());
        fields.forEach((k, v) -> assertThat(decoded.get(k)).isEqualTo(v));
    }

    @Property
    void subsetDecodeEqualsFilteredRecord(
            @ForAll("records") Map<String, byte[]> fields, @ForAll @Size(max = 6) Set<String> wanted) {
        Set<String> ask = new java.util.HashSet<>(wanted);
        fields.keySet().stream().limit(2).forEach(ask::add);
        Map<String, byte[]> expected = fields.entrySet().stream()
                .filter(e -> ask.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        LinkedHashMap<String, byte[]> decoded = RecordCodec.decode(RecordCodec.encode(fields), ask);
        assertThat(decoded.keySet()).isEqualTo(expected.keySet());
        expected.forEach((k, v) -> assertThat(decoded.get(k)).isEqualTo(v));
    }

    @Property
    void mergeEqualsPutAll(
            @ForAll("records") Map<String, byte[]> stored, @ForAll("records") Map<String, byte[]> update) {
        Map<String, byte[]> expected = new HashMap<>(stored);
        expected.putAll(update);
        LinkedHashMap<String, byte[]> merged =
                RecordCodec.decode(RecordCodec.merge(RecordCodec.encode(stored), update));
        assertThat(merged.keySet()).isEqualTo(expected.keySet());
        expected.forEach((k, v) -> assertThat(merged.get(k)).isEqualTo(v));
    }

    @Property
    void everyTruncationIsDetected(@ForAll("records") Map<String, byte[]> fields, @ForAll double where) {
        byte[] enc = RecordCodec.encode(fields);
        int cut = (int) (Math.abs(where) % 1.0 * enc.length); // 0 .. length-1
        assertThatThrownBy(() -> RecordCodec.decode(Arrays.copyOf(enc, cut))).isInstanceOf(RecordFormatException.class);
    }

    @Property(tries = 2000)
    void arbitraryBytesDecodeOrFailCleanly(@ForAll @Size(max = 64) byte[] junk, @ForAll boolean versioned) {
        byte[] input = junk.clone();
        if (versioned && input.length > 0) {
            input[0] = 1; // get past the version check most of the time
        }
        try {
            Map<String, byte[]> decoded = RecordCodec.decode(input);
            // whatever decodes must re-encode to the same bytes or a canonical form of the same record
            assertThat(strings(RecordCodec.decode(RecordCodec.encode(decoded)))).isEqualTo(strings(decoded));
        } catch (RecordFormatException expected) {
            assertThat(expected.getMessage()).startsWith("corrupt Sluice YCSB record: ");
        }
    }

    @Provide
    Arbitrary<Map<String, byte[]>> records() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.of("field0", "field1", "field2", "field3"),
                // any BMP text but lone surrogates (which String.getBytes cannot encode), including empty names
                Arbitraries.strings().withCharRange('\u0000', '\uD7FF').ofMaxLength(12),
                Arbitraries.strings().alpha().ofMinLength(100).ofMaxLength(200)); // multi-byte length varint
        Arbitrary<byte[]> values = Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(16),
                Arbitraries.bytes().array(byte[].class).ofMinSize(128).ofMaxSize(400));
        return Arbitraries.maps(names, values).ofMaxSize(12).map(LinkedHashMap::new);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> text(Map<String, byte[]> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
        return out;
    }

    private static Map<String, String> strings(Map<String, byte[]> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, Arrays.toString(v)));
        return out;
    }
}
