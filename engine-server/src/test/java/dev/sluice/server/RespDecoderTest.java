package dev.sluice.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** The decoder alone, on Netty's embedded channel: what an array's header makes it reserve. */
class RespDecoderTest {
    private static EmbeddedChannel channel(RespDecoder d) {
        return new EmbeddedChannel(d);
    }

    /**
     * A header announcing a million elements reserves slots for 1,024 only (until 2026-11-27: all million, 4-8 MB,
     * from an 11-byte frame); the array still decodes whole when its elements arrive, in pieces.
     */
    @Test
    void anArrayHeaderReservesLittleAndTheArrayGrowsAsItArrives() {
        RespDecoder d = new RespDecoder(2_000_000, 1 << 20, 1 << 16, Long.MAX_VALUE, () -> false);
        EmbeddedChannel ch = channel(d);
        int n = 5_000;
        ch.writeInbound(Unpooled.copiedBuffer("*" + n + "\r\n$4\r\nMSET\r\n", US_ASCII));
        assertThat(d.reservedSlots()).isEqualTo(1024);
        assertThat((Object) ch.readInbound()).isNull();
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < n; i++) {
            String a = Integer.toString(i);
            sb.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
            if (i % 700 == 0) {
                ch.writeInbound(Unpooled.copiedBuffer(sb, US_ASCII));
                sb.setLength(0);
            }
        }
        ch.writeInbound(Unpooled.copiedBuffer(sb, US_ASCII));
        byte[][] args = ch.readInbound();
        assertThat(args.length).isEqualTo(n);
        assertThat(new String(args[0], US_ASCII)).isEqualTo("MSET");
        assertThat(new String(args[n - 1], US_ASCII)).isEqualTo(Integer.toString(n - 1));
        assertThat(d.reservedSlots()).isZero(); // nothing held between requests
        ch.finishAndReleaseAll();
    }

    @Test
    void aMillionElementHeaderReservesAThousandSlots() {
        RespDecoder d = new RespDecoder(2_000_000, 1 << 20, 1 << 16, Long.MAX_VALUE, () -> false);
        EmbeddedChannel ch = channel(d);
        ch.writeInbound(Unpooled.copiedBuffer("*1048576\r\n", US_ASCII));
        assertThat(d.reservedSlots()).isEqualTo(1024);
        ch.finishAndReleaseAll();
    }

    private static java.util.List<String> inline(String line) {
        RespDecoder d = new RespDecoder(1000, 1 << 20, 1 << 16, Long.MAX_VALUE, () -> false);
        EmbeddedChannel ch = channel(d);
        ch.writeInbound(Unpooled.copiedBuffer(line, java.nio.charset.StandardCharsets.ISO_8859_1));
        Object msg = ch.readInbound();
        ch.finishAndReleaseAll();
        if (msg instanceof RespDecoder.ProtocolError e) {
            return java.util.List.of("ERROR: " + e.message());
        }
        java.util.List<String> out = new java.util.ArrayList<>();
        for (byte[] a : (byte[][]) msg) {
            out.add(new String(a, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    /** Inline commands are split as Redis' sdssplitargs splits them (until 2026-11-27: on blanks, quotes kept). */
    @Test
    void inlineCommandsHonourRedisQuoting() {
        assertThat(inline("SET k \"a b\"\r\n")).containsExactly("SET", "k", "a b");
        assertThat(inline("SET k ''\r\n")).containsExactly("SET", "k", "");
        assertThat(inline("SET 'it\\'s' \"x\\ty\\n\\x41\\\"\"\n")).containsExactly("SET", "it's", "x\ty\nA\"");
        assertThat(inline("  GET   a\"b c\"  \r\n")).containsExactly("GET", "ab c");
        assertThat(inline("ECHO \"\\xff\\x00\"\r\n")).containsExactly("ECHO", "\u00ff\u0000");
        assertThat(inline("SET k \"open\r\n")).containsExactly("ERROR: Protocol error: unbalanced quotes in request");
        assertThat(inline("SET k \"a\"b\r\n")).containsExactly("ERROR: Protocol error: unbalanced quotes in request");
        assertThat(inline("SET k 'a\r\n")).containsExactly("ERROR: Protocol error: unbalanced quotes in request");
    }
}
