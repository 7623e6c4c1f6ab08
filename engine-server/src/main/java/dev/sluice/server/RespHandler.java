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
 * (autoRead off) until half of them are written. Shutdown: {@link #quiesce} stops reading; the server then waits for
 * {@link #idle} before closing.
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
    private boolean quiesced;
    private boolean unflushed;
    private volatile boolean idle = true;

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
        if (closing) {
            return;
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
        Commands.Spec spec = commands.spec(args[0]);
        KeyOrder.Access access = spec == null ? KeyOrder.Access.NONE : spec.access(args);
        CompletableFuture<Reply> reply = commands.execute(session, args, spec, order.dependencies(access));
        order.register(access, reply);
        enqueue(reply, spec == null ? null : spec.name(), access);
        if (pending.size() >= maxPending && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void enqueue(CompletableFuture<Reply> f, String command, KeyOrder.Access access) {
        pending.addLast(new Pending(f, command, access, System.nanoTime()));
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
        while (!closing && !pending.isEmpty() && pending.peekFirst().reply().isDone()) {
            Pending p = pending.pollFirst();
            order.release(p.access(), p.reply());
            Reply r = p.reply().getNow(null);
            if (r == null) {
                r = Reply.error("ERR internal error: no reply");
            }
            stats.completed(p.command(), System.nanoTime() - p.startNanos());
            ByteBuf buf = ctx.alloc().buffer();
            r.encode(buf);
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
        if (!quiesced && !ctx.channel().config().isAutoRead() && pending.size() <= maxPending / 2) {
            ctx.channel().config().setAutoRead(true);
        }
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

    /** No reply outstanding. */
    boolean idle() {
        return idle;
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
