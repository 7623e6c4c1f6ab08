package dev.sluice.server;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A RESP2 reply, encoded by {@link #encode}. Immutable. */
sealed interface Reply {
    Reply OK = new Simple("OK");
    Reply NIL = new Bulk(null);
    Reply EMPTY_ARRAY = new Array(List.of());

    void encode(ByteBuf out);

    /** About the bytes this reply holds in memory (its values; a small constant for the rest): for the reply budget. */
    static long sizeOf(Reply r) {
        if (r instanceof Bulk b) {
            return 16 + (b.data() == null ? 0 : b.data().length);
        }
        if (r instanceof Array a) {
            long n = 16;
            for (Reply e : a.elements()) {
                n += sizeOf(e);
            }
            return n;
        }
        if (r instanceof ThenClose t) {
            return sizeOf(t.reply());
        }
        if (r instanceof Simple s) {
            return 16 + s.text().length();
        }
        if (r instanceof Error e) {
            return 16 + e.text().length();
        }
        return 16;
    }

    /** {@code +text}. */
    record Simple(String text) implements Reply {
        @Override
        public void encode(ByteBuf out) {
            out.writeByte('+');
            out.writeCharSequence(oneLine(text), StandardCharsets.UTF_8);
            crlf(out);
        }
    }

    /** {@code -CODE message}: the first word is the error code clients show (ERR, BUSY, QUOTA, NOAUTH...). */
    record Error(String text) implements Reply {
        @Override
        public void encode(ByteBuf out) {
            out.writeByte('-');
            out.writeCharSequence(oneLine(text), StandardCharsets.UTF_8);
            crlf(out);
        }
    }

    /** {@code :n}. */
    record Int(long value) implements Reply {
        @Override
        public void encode(ByteBuf out) {
            out.writeByte(':');
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
            crlf(out);
        }
    }

    /** {@code $len data}, or the null bulk {@code $-1} when {@code data} is null. */
    record Bulk(byte[] data) implements Reply {
        static Bulk of(String s) {
            return new Bulk(s.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void encode(ByteBuf out) {
            out.writeByte('$');
            if (data == null) {
                out.writeCharSequence("-1", StandardCharsets.US_ASCII);
                crlf(out);
                return;
            }
            out.writeCharSequence(Integer.toString(data.length), StandardCharsets.US_ASCII);
            crlf(out);
            out.writeBytes(data);
            crlf(out);
        }
    }

    /** {@code *n elements}. */
    record Array(List<Reply> elements) implements Reply {
        @Override
        public void encode(ByteBuf out) {
            out.writeByte('*');
            out.writeCharSequence(Integer.toString(elements.size()), StandardCharsets.US_ASCII);
            crlf(out);
            for (Reply r : elements) {
                r.encode(out);
            }
        }
    }

    /** Writes {@code reply}, then closes the connection (QUIT, protocol errors). */
    record ThenClose(Reply reply) implements Reply {
        @Override
        public void encode(ByteBuf out) {
            reply.encode(out);
        }
    }

    static Error error(String text) {
        return new Error(text);
    }

    private static void crlf(ByteBuf out) {
        out.writeByte('\r');
        out.writeByte('\n');
    }

    /** Simple strings and errors cannot hold CR or LF. */
    private static String oneLine(String s) {
        return s.indexOf('\r') < 0 && s.indexOf('\n') < 0
                ? s
                : s.replace('\r', ' ').replace('\n', ' ');
    }
}
