package dev.sluice.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Decodes RESP2 requests — arrays of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline commands
 * ({@code PING\r\n}) — into {@code byte[][]} argument vectors, with limits checked as soon as a header is read (before
 * any of the body is buffered): array length ({@code server.max.array.length}), bulk length ({@code
 * server.max.bulk.bytes}), the bytes of one request's arguments together ({@code server.max.request.bytes}) and inline
 * line length ({@code server.max.inline.bytes}). Before AUTH on a server with tenants, Redis' own pre-authentication
 * limits apply instead: at most {@value #UNAUTHENTICATED_ARRAY_LENGTH} elements and bulk strings of at most {@value
 * #UNAUTHENTICATED_BULK_BYTES} bytes.
 *
 * <p>A malformed or oversized frame produces one {@link ProtocolError} (after the requests decoded before it, so their
 * replies are still written in order); from then on the rest of the connection's input is discarded and the handler
 * closes that connection after writing the error. Other connections are not affected. Not sharable: one per channel.
 *
 * <p>An array that arrives in pieces is decoded once: the elements already read are kept between calls and decoding
 * resumes at the first incomplete one. Until 2026-11-26 every new piece restarted the array from its header and copied
 * its elements again, which made a request's decoding time quadratic in its size (a 1-M-argument request took 31 s of
 * an event loop, stalling the other connections on it).
 */
final class RespDecoder extends ByteToMessageDecoder {
    /** A protocol error; the message follows Redis' {@code -ERR Protocol error: ...}. */
    record ProtocolError(String message) {}

    private static final int MAX_HEADER_LINE = 32;

    /** Before AUTH on a server with tenants: most elements of a request, as Redis (its "unauthenticated" limits). */
    static final int UNAUTHENTICATED_ARRAY_LENGTH = 10;
    /** Before AUTH on a server with tenants: the largest bulk string, as Redis. */
    static final int UNAUTHENTICATED_BULK_BYTES = 16 * 1024;
    /** Element slots allocated up front for an array; more are added as elements arrive (Redis allocates 1024). */
    private static final int INITIAL_SLOTS = 1024;

    private final int maxArrayLength;
    private final int maxBulkBytes;
    private final int maxInlineBytes;
    private final long maxRequestBytes;
    private final BooleanSupplier unauthenticated;
    private final RequestMemory memory;
    /** The partition the connection's requests count for in {@link #memory} (its tenant's; changes with AUTH). */
    private final Supplier<String> partition;
    /** What this connection holds of {@link #memory}: its partial request and the bytes received but not decoded. */
    private long held;
    /** The count {@link #held} is in (null until the first decode). */
    private ReplyMemory.Share heldIn;

    private boolean failed;
    /** The array being decoded when its end has not arrived yet (null between requests); grown as elements arrive. */
    private byte[][] partial;
    /** Elements of {@link #partial} already decoded. */
    private int partialCount;
    /** Elements the array's header announced. */
    private int partialLength;
    /** Bytes of the elements of {@link #partial} already decoded. */
    private long partialBytes;

    /**
     * @param unauthenticated true while the connection must still AUTH (a server with tenants, no AUTH yet): requests
     *     then get Redis' small pre-authentication limits, so that a client that has not authenticated cannot make the
     *     server buffer megabytes
     */
    RespDecoder(
            int maxArrayLength,
            int maxBulkBytes,
            int maxInlineBytes,
            long maxRequestBytes,
            BooleanSupplier unauthenticated) {
        this(
                maxArrayLength,
                maxBulkBytes,
                maxInlineBytes,
                maxRequestBytes,
                unauthenticated,
                RequestMemory.UNBOUNDED,
                () -> null);
    }

    /**
     * @param memory the server's budget for requests being received, shared by every connection
     * @param partition the partition the connection's requests count for in {@code memory} (its tenant's)
     */
    RespDecoder(
            int maxArrayLength,
            int maxBulkBytes,
            int maxInlineBytes,
            long maxRequestBytes,
            BooleanSupplier unauthenticated,
            RequestMemory memory,
            Supplier<String> partition) {
        this.memory = memory;
        this.partition = partition;
        this.maxArrayLength = maxArrayLength;
        this.maxBulkBytes = maxBulkBytes;
        this.maxInlineBytes = maxInlineBytes;
        this.maxRequestBytes = maxRequestBytes;
        this.unauthenticated = unauthenticated;
    }

    /** Element slots held for the array being decoded (0 between requests); for tests. */
    int reservedSlots() {
        return partial == null ? 0 : partial.length;
    }

    /** Thrown inside decoding; turned into one {@link ProtocolError}. */
    private static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Decodes, then accounts what the connection holds against the server's {@link RequestMemory}: a connection holding
     * more than {@link RequestMemory#FLOOR} that its tenant's floor and the shared half have no room for is refused as a
     * protocol error and closed (a probe, 2026-11-29: 10 connections each half-way through a 64-MiB MSET held a 512-MiB
     * heap, and the 11th ran it out of memory; server.max.request.bytes bounds one connection only).
     */
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decodeRequests(ctx, in, out);
        long now = failed ? 0 : (partial == null ? 0 : partialBytes) + in.readableBytes();
        ReplyMemory.Share s = memory.share(partition.get());
        if (s != heldIn) { // the first decode, or an AUTH moved the connection to another tenant's count
            if (heldIn != null) {
                memory.release(heldIn, held);
            }
            held = 0;
            heldIn = s;
        }
        if (memory.hold(s, held, now)) {
            held = now;
        } else if (!failed) {
            failed = true;
            partial = null;
            in.skipBytes(in.readableBytes());
            memory.release(s, held);
            held = 0;
            out.add(new ProtocolError("the server's memory for requests being received is full ("
                    + memory.budget() + " bytes, server.max.request.bytes.total"
                    + (s.partition == null
                            ? ""
                            : "; partition '" + s.partition + "' holds its floor of " + s.floor
                                    + " bytes and the shared half is in use")
                    + ") and this connection holds " + now
                    + " bytes of an unfinished request"));
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (heldIn != null) {
            memory.release(heldIn, held);
        }
        held = 0;
    }

    private void decodeRequests(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            if (!ctx.channel().config().isAutoRead() && partial == null) {
                // The handler stopped reading (server.max.pending.per.connection reached, or the client does not read
                // its replies): the requests already received stay here, undecoded, until it resumes and calls
                // {@link RespHandler#resumeReading}. Until 2026-11-27 everything one socket read had brought in
                // (up to ~10,000 inline PINGs) was decoded and started regardless.
                return;
            }
            int start = in.readerIndex();
            Object msg;
            try {
                if (partial != null) {
                    msg = decodeElements(in);
                } else {
                    msg = in.getByte(start) == '*' ? decodeArray(in) : decodeInline(in);
                }
            } catch (Malformed e) {
                failed = true;
                partial = null;
                in.skipBytes(in.readableBytes());
                out.add(new ProtocolError("Protocol error: " + e.getMessage()));
                return;
            }
            if (msg == null) {
                if (partial == null) {
                    in.readerIndex(start); // an incomplete header or inline line: wait for more bytes
                }
                return; // an incomplete array element: decodeElements left the reader at its start
            }
            if (msg != SKIP) {
                // One request per call: Netty hands it to the handler before calling again for the rest of the buffer,
                // so the handler has run it (an AUTH, which lifts the pre-authentication limits) and has had the
                // chance to stop reading (the check at the top) before the next one is decoded.
                out.add(msg);
                return;
            }
        }
    }

    private static final Object SKIP = new Object();

    /** An array of bulk strings: its header, then {@link #decodeElements}; null when incomplete. */
    private Object decodeArray(ByteBuf in) throws Malformed {
        in.skipBytes(1);
        long n = readNumber(in, "multibulk length");
        if (n == Long.MIN_VALUE) {
            return null;
        }
        if (n > maxArrayLength) {
            throw new Malformed("array of " + n + " elements exceeds server.max.array.length (" + maxArrayLength + ")");
        }
        if (n > UNAUTHENTICATED_ARRAY_LENGTH && unauthenticated.getAsBoolean()) {
            throw new Malformed("unauthenticated multibulk length"); // Redis' text
        }
        if (n <= 0) {
            if (n < -1) {
                throw new Malformed("invalid multibulk length " + n);
            }
            return SKIP; // *0 and *-1: empty requests are ignored, as Redis does
        }
        // The header alone must not reserve memory: until 2026-11-27 "*1048576\r\n" (11 bytes) allocated 4-8 MB of
        // slots at once, before AUTH, on every connection that sent it.
        partial = new byte[(int) Math.min(n, INITIAL_SLOTS)][];
        partialLength = (int) n;
        partialCount = 0;
        partialBytes = 0;
        return decodeElements(in);
    }

    /**
     * The elements of {@link #partial} from {@link #partialCount} on; the whole array when its last element is in, else
     * null with the reader at the start of the first incomplete element.
     */
    private Object decodeElements(ByteBuf in) throws Malformed {
        for (int i = partialCount; i < partialLength; i++) {
            int elementStart = in.readerIndex();
            if (!in.isReadable()) {
                return null;
            }
            byte b = in.readByte();
            if (b != '$') {
                throw new Malformed("expected '$', got '" + printable(b) + "'");
            }
            long len = readNumber(in, "bulk length");
            if (len == Long.MIN_VALUE) {
                in.readerIndex(elementStart);
                return null;
            }
            if (len > maxBulkBytes) {
                throw new Malformed(
                        "bulk string of " + len + " bytes exceeds server.max.bulk.bytes (" + maxBulkBytes + ")");
            }
            if (len < 0) {
                throw new Malformed("invalid bulk length " + len);
            }
            if (len > UNAUTHENTICATED_BULK_BYTES && unauthenticated.getAsBoolean()) {
                throw new Malformed("unauthenticated bulk length"); // Redis' text
            }
            if (partialBytes + len > maxRequestBytes) {
                throw new Malformed(
                        "request of more than " + maxRequestBytes + " bytes exceeds server.max.request.bytes");
            }
            if (in.readableBytes() < len + 2) {
                in.readerIndex(elementStart);
                return null;
            }
            byte[] a = new byte[(int) len];
            in.readBytes(a);
            if (in.readByte() != '\r' || in.readByte() != '\n') {
                throw new Malformed("bulk string not terminated by CRLF");
            }
            if (i == partial.length) {
                partial = Arrays.copyOf(partial, (int) Math.min(partialLength, 2L * partial.length));
            }
            partial[i] = a;
            partialCount = i + 1;
            partialBytes += len;
        }
        byte[][] args = partial;
        partial = null;
        return args;
    }

    /**
     * A decimal number terminated by CRLF; {@link Long#MIN_VALUE} when the line is not complete yet.
     *
     * @throws Malformed when it is not a number or the line is too long for one
     */
    private static long readNumber(ByteBuf in, String what) throws Malformed {
        int eol = in.indexOf(
                in.readerIndex(), Math.min(in.writerIndex(), in.readerIndex() + MAX_HEADER_LINE), (byte) '\n');
        if (eol < 0) {
            if (in.readableBytes() >= MAX_HEADER_LINE) {
                throw new Malformed("invalid " + what + " (no CRLF within " + MAX_HEADER_LINE + " bytes)");
            }
            return Long.MIN_VALUE;
        }
        int len = eol - in.readerIndex();
        if (len < 2 || in.getByte(eol - 1) != '\r') {
            throw new Malformed("invalid " + what);
        }
        String s = in.toString(in.readerIndex(), len - 1, StandardCharsets.US_ASCII);
        in.readerIndex(eol + 1);
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new Malformed("invalid " + what + " '" + printable(s) + "'");
        }
    }

    /**
     * An inline command: one line split into arguments as Redis splits it ({@code sdssplitargs}): on blanks, with
     * {@code "..."} (escapes {@code \n \r \t \b \a \\ \" \xHH}) and {@code '...'} (escape {@code \'}) quoting, so that
     * {@code SET k "a b"} sets the value {@code a b} and {@code ""} is an empty argument; null when incomplete. A quote
     * left open, or a closing quote followed by something other than a blank, is a protocol error ("unbalanced quotes
     * in request"), as in Redis. Until 2026-11-27 the line was split on blanks only and quotes were kept as bytes.
     */
    private Object decodeInline(ByteBuf in) throws Malformed {
        int limit = Math.min(in.writerIndex(), in.readerIndex() + maxInlineBytes + 2);
        int eol = in.indexOf(in.readerIndex(), limit, (byte) '\n');
        if (eol < 0) {
            if (in.readableBytes() > maxInlineBytes) {
                throw new Malformed("inline request longer than server.max.inline.bytes (" + maxInlineBytes + ")");
            }
            return null;
        }
        int end = eol > in.readerIndex() && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
        byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(eol + 1);
        List<byte[]> args = splitArgs(line);
        if (args.size() > maxArrayLength) {
            throw new Malformed("inline request of " + args.size() + " arguments exceeds server.max.array.length ("
                    + maxArrayLength + ")");
        }
        return args.isEmpty() ? SKIP : args.toArray(new byte[0][]);
    }

    /** Redis' {@code sdssplitargs} over bytes (see {@link #decodeInline}). */
    private static List<byte[]> splitArgs(byte[] line) throws Malformed {
        List<byte[]> args = new ArrayList<>();
        int i = 0;
        int n = line.length;
        while (true) {
            while (i < n && isBlank(line[i])) {
                i++;
            }
            if (i >= n) {
                return args;
            }
            java.io.ByteArrayOutputStream cur = new java.io.ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                if (inDouble) {
                    if (i >= n) {
                        throw new Malformed("unbalanced quotes in request");
                    }
                    byte b = line[i];
                    if (b == '\\'
                            && i + 3 < n
                            && line[i + 1] == 'x'
                            && hex(line[i + 2]) >= 0
                            && hex(line[i + 3]) >= 0) {
                        cur.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
                        i += 3;
                    } else if (b == '\\' && i + 1 < n) {
                        i++;
                        cur.write(
                                switch (line[i]) {
                                    case 'n' -> '\n';
                                    case 'r' -> '\r';
                                    case 't' -> '\t';
                                    case 'b' -> '\b';
                                    case 'a' -> 7;
                                    default -> line[i];
                                });
                    } else if (b == '"') {
                        if (i + 1 < n && !isBlank(line[i + 1])) {
                            throw new Malformed("unbalanced quotes in request"); // "foo"bar is an error
                        }
                        done = true;
                    } else {
                        cur.write(b);
                    }
                } else if (inSingle) {
                    if (i >= n) {
                        throw new Malformed("unbalanced quotes in request");
                    }
                    byte b = line[i];
                    if (b == '\\' && i + 1 < n && line[i + 1] == '\'') {
                        i++;
                        cur.write('\'');
                    } else if (b == '\'') {
                        if (i + 1 < n && !isBlank(line[i + 1])) {
                            throw new Malformed("unbalanced quotes in request");
                        }
                        done = true;
                    } else {
                        cur.write(b);
                    }
                } else if (i >= n || isBlank(line[i])) {
                    done = true;
                } else if (line[i] == '"') {
                    inDouble = true;
                } else if (line[i] == '\'') {
                    inSingle = true;
                } else {
                    cur.write(line[i]);
                }
                if (i < n) {
                    i++;
                }
            }
            args.add(cur.toByteArray());
        }
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0;
    }

    private static int hex(byte b) {
        return Character.digit((char) b, 16);
    }

    private static String printable(byte b) {
        return b >= 32 && b < 127 ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff);
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            sb.append(c >= 32 && c < 127 ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return sb.toString();
    }
}
