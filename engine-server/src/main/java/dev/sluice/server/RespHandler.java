package dev.sluice.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RESP2 connection. Requests are started as soon as they are decoded (so a pipeline runs concurrently on the node's
 * async pool) and their replies are written strictly in request order: a FIFO of pending replies is drained from its
 * head on the event loop whenever one completes. All fields are touched on the channel's event loop only; completions
 * from other threads hop onto it with {@code execute}. Nothing here blocks.
 *
 * <p>Back-pressure: with {@code server.max.pending.per.connection} replies outstanding the connection stops reading
 * (autoRead off) until half of them are written. Replies are encoded only while the channel is writable (its unsent
 * output below Netty's write-buffer high-water mark): a client that pipelines and does not read its replies stops
 * being read, and its ready replies wait as objects in the queue, bounded by that limit, instead of piling up as
 * encoded direct buffers (a hostile-client test made the server hold ~500 MB of unsent replies for one such client,
 * and other connections then failed to allocate theirs). Reading resumes when the output drains. A reply that cannot
 * be encoded closes the connection: dropping it would pair every later reply with the wrong request.
 *
 * <p>Shutdown: {@link #quiesce} stops reading; the server then waits for {@link #idle} (no reply outstanding and no
 * output unsent) before closing.
 */
final class RespHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private record Pending(CompletableFuture<Reply> reply, String command, KeyOrder.Access access, long startNanos) {}

    private final Commands commands;
    private final ServerStats stats;
    private final int maxPending;
    private final Session session;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final KeyOrder order = new KeyOrder();
    private ChannelHandlerContext ctx;
    private boolean closing;
    /** QUIT was read: nothing after it on this connection runs (Redis stops processing input at QUIT). */
    private boolean quit;

    private boolean quiesced;
    private boolean unflushed;
    private volatile boolean idle = true;
    /** The most requests this connection had in flight at once (for tests of the back-pressure bound). */
    private volatile int peakPending;

    RespHandler(Commands commands, ServerStats stats, int maxPending, Session session) {
        this.commands = commands;
        this.stats = stats;
        this.maxPending = maxPending;
        this.session = session;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        stats.connectionOpened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.connectionClosed();
        closing = true;
        pending.clear();
        idle = true;
        session.clearCursors();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing || quit) {
            return; // after QUIT: requests pipelined behind it are dropped unrun, as Redis does
        }
        if (msg instanceof RespDecoder.ProtocolError err) {
            stats.protocolError();
            log.info(
                    "connection {} from {}: {}; closing it",
                    session.id,
                    ctx.channel().remoteAddress(),
                    err.message());
            enqueue(
                    CompletableFuture.completedFuture(new Reply.ThenClose(Reply.error("ERR " + err.message()))),
                    null,
                    KeyOrder.Access.NONE);
            return;
        }
        byte[][] args = (byte[][]) msg;
        if (crossProtocol(args[0])) {
            // An HTTP request sent to the RESP port (e.g. a web page's fetch to 127.0.0.1): its body would run as
            // commands. Close at once, as Redis does since 3.2.7.
            log.warn(
                    "connection {} from {}: possible cross-protocol attack ('{}' sent to the RESP port); closing it",
                    session.id,
                    ctx.channel().remoteAddress(),
                    new String(args[0], java.nio.charset.StandardCharsets.US_ASCII));
            stats.protocolError();
            closing = true;
            pending.clear();
            idle = true;
            ctx.close();
            return;
        }
        Commands.Spec spec = commands.spec(args[0]);
        KeyOrder.Access access = spec == null ? KeyOrder.Access.NONE : spec.access(args);
        CompletableFuture<Reply> reply = commands.execute(session, args, spec, order.dependencies(access));
        order.register(access, reply);
        if (spec != null && spec.name().equals("QUIT")) {
            // Until 2026-11-27 a request pipelined after QUIT still ran when an earlier reply was outstanding (the
            // connection closed only once QUIT's reply reached the head of the queue), though its client never saw
            // a reply: "SET a 1 / QUIT / SET b 2" in one packet could store b.
            quit = true;
            ctx.channel().config().setAutoRead(false);
        }
        enqueue(reply, spec == null ? null : spec.name(), access);
        if ((pending.size() >= maxPending || !ctx.channel().isWritable())
                && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Runs on every request: compares bytes, allocating nothing unless the length already matches. */
    private static boolean crossProtocol(byte[] name) {
        if (name.length != 4 && name.length != 5) {
            return false;
        }
        String n = new String(name, java.nio.charset.StandardCharsets.US_ASCII);
        return n.equalsIgnoreCase("POST") || n.equalsIgnoreCase("Host:");
    }

    private void enqueue(CompletableFuture<Reply> f, String command, KeyOrder.Access access) {
        pending.addLast(new Pending(f, command, access, System.nanoTime()));
        if (pending.size() > peakPending) {
            peakPending = pending.size();
        }
        idle = false;
        if (!f.isDone()) {
            f.whenComplete((r, e) -> {
                if (ctx.executor().inEventLoop()) {
                    drain(true);
                } else {
                    ctx.executor().execute(() -> drain(true));
                }
            });
        } else if (pending.size() == 1) {
            drain(false);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        drain(true);
        ctx.fireChannelReadComplete();
    }

    /** Writes the replies at the head of the queue that are ready, in order. */
    private void drain(boolean flush) {
        boolean wrote = false;
        while (!closing
                && !pending.isEmpty()
                && pending.peekFirst().reply().isDone()
                && ctx.channel().isWritable()) {
            Reply r = pending.peekFirst().reply().getNow(null);
            if (r == null) {
                r = Reply.error("ERR internal error: no reply");
            }
            ByteBuf buf = null;
            try {
                buf = ctx.alloc().buffer();
                r.encode(buf);
            } catch (RuntimeException | OutOfMemoryError e) {
                if (buf != null) {
                    buf.release();
                }
                log.warn(
                        "connection {}: a reply could not be encoded ({}); closing the connection so that no later"
                                + " reply answers the wrong request",
                        session.id,
                        e.toString());
                closing = true;
                pending.clear();
                idle = true;
                ctx.close();
                return;
            }
            Pending p = pending.pollFirst();
            order.release(p.access(), p.reply());
            stats.completed(p.command(), System.nanoTime() - p.startNanos());
            if (r instanceof Reply.ThenClose) {
                closing = true;
                pending.clear();
                ctx.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
                idle = true;
                return;
            }
            ctx.write(buf);
            wrote = true;
        }
        unflushed |= wrote;
        if (unflushed && flush) {
            unflushed = false;
            ctx.flush(); // without flush (during a read) channelReadComplete flushes the whole batch at once
        }
        if (pending.isEmpty()) {
            idle = true;
        }
        if (!quiesced
                && !quit
                && !ctx.channel().config().isAutoRead()
                && pending.size() <= maxPending / 2
                && ctx.channel().isWritable()) {
            resumeReading();
        }
    }

    /**
     * Reading on again: the socket, and the requests the decoder holds undecoded (it stops while reading is off). An
     * empty read through the pipeline makes it decode them; without it a client that had sent its whole pipeline would
     * wait forever, since no new bytes arrive to trigger decoding. Run as a task, not from inside {@link #drain}, so
     * that the requests it decodes do not re-enter it.
     */
    private void resumeReading() {
        ctx.channel().config().setAutoRead(true);
        ctx.executor().execute(() -> {
            if (!closing && ctx.channel().isActive() && ctx.channel().config().isAutoRead()) {
                ctx.pipeline().fireChannelRead(io.netty.buffer.Unpooled.EMPTY_BUFFER);
                ctx.pipeline().fireChannelReadComplete();
            }
        });
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            drain(true); // replies held back while the client was not reading
        } else if (ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** Stops reading new requests (shutdown); the ones already read still get their replies. */
    void quiesce() {
        if (ctx == null) {
            return;
        }
        ctx.executor().execute(() -> {
            quiesced = true;
            ctx.channel().config().setAutoRead(false);
            drain(true);
        });
    }

    int peakPending() {
        return peakPending;
    }

    /** No reply outstanding, and every reply written has left for the client (or the connection is closed). */
    boolean idle() {
        if (!idle) {
            return false;
        }
        ChannelHandlerContext c = ctx;
        if (c == null || !c.channel().isActive()) {
            return true;
        }
        io.netty.channel.ChannelOutboundBuffer out = c.channel().unsafe().outboundBuffer();
        return out == null || out.totalPendingWriteBytes() == 0;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String m = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
        if (!(cause instanceof java.io.IOException) || !(m.contains("reset") || m.contains("broken pipe"))) {
            log.info("connection {} closed after an error: {}", session.id, cause.toString());
        }
        closing = true;
        ctx.close();
    }
}
