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
 * <p>Reply memory: a request's reply may hold a value of up to {@code limits.max.value.bytes}, and a pipeline of
 * large GETs ran all at once (up to {@code server.max.pending.per.connection} of them), its replies computed faster than
 * the socket takes them: one client pipelining 1,500 GETs of a 16-MB value filled a 6-GB heap (OutOfMemoryError for
 * other clients' requests too; hostile-client probe, 2026-11-28). So a decoded request starts only while this
 * connection's reply bytes in memory — replies ready but not yet written, plus each running request's worst case
 * ({@link Commands#replyEstimate}: {@code limits.max.value.bytes} for a GET) — stay within {@code
 * server.max.reply.bytes.per.connection}, and the server's within {@code server.max.reply.bytes} ({@link
 * ReplyMemory}). A request that may not start yet waits in order (it still counts against the pending bound, so
 * reading stops as before); one request per connection always runs, so a single large reply is never refused.
 *
 * <p>Shutdown: {@link #quiesce} stops reading; the server then waits for {@link #idle} (no reply outstanding and no
 * output unsent) before closing.
 */
final class RespHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);
    /**
     * Lines a client triggers at will (a malformed frame, an HTTP request on this port): at most one per interval for
     * the whole server, with the count of the others, so that a client reconnecting in a loop cannot fill the log.
     */
    private static final RateLimitedLog clientErrorLog = new RateLimitedLog(log);

    /**
     * {@code held[0]}: the bytes its reply is counted with in {@link #readyBytes}; {@code held[1]}: see {@link #start};
     * {@code share}: the partition's count in {@link ReplyMemory} it was started under; {@code tenantPartition}: the
     * partition of the tenant the connection had authenticated as when it was read (null before AUTH), whose INFO
     * counts it.
     */
    private record Pending(
            CompletableFuture<Reply> reply,
            String command,
            KeyOrder.Access access,
            long startNanos,
            long[] held,
            ReplyMemory.Share share,
            String tenantPartition) {}

    /** A decoded request that waits for reply memory before it starts; {@code reply} is completed with its reply. */
    private record Waiting(
            byte[][] args,
            Commands.Spec spec,
            CompletableFuture<?> after,
            CompletableFuture<Reply> reply,
            long[] held,
            long estimate,
            ReplyMemory.Share share) {}

    private final Commands commands;
    private final ServerStats stats;
    private final int maxPending;
    private final Session session;
    private final ReplyMemory memory;
    private final long replyBudget;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    /** Run by {@link ReplyMemory} when room was freed elsewhere: starts what waits here, on this event loop. */
    private final Runnable wake = () -> {
        ChannelHandlerContext c = this.ctx;
        if (c != null) {
            try {
                c.executor().execute(this::startWaiting);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the event loop is shutting down: nothing of this connection will start any more
            }
        }
    };
    /** {@link #startWaiting} is running (on this event loop). */
    private boolean startingWaiting;
    /** Requests started and not yet completed. */
    private int running;
    /** Bytes of the replies completed and not yet written (also counted in {@link #memory}). */
    private long readyBytes;
    /** The worst-case reply bytes of the running requests ({@link Commands#replyEstimate}; also in {@link #memory}). */
    private long reserved;

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
    /** The most reply bytes this connection held at once, ready and running (for tests of the reply budget). */
    private volatile long peakHeld;

    RespHandler(
            Commands commands,
            ServerStats stats,
            int maxPending,
            Session session,
            ReplyMemory memory,
            long replyBudget) {
        this.commands = commands;
        this.stats = stats;
        this.maxPending = maxPending;
        this.session = session;
        this.memory = memory;
        this.replyBudget = replyBudget;
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
        dropAll();
        idle = true;
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing || quit) {
            return; // after QUIT: requests pipelined behind it are dropped unrun, as Redis does
        }
        if (msg instanceof RespDecoder.ProtocolError err) {
            stats.protocolError();
            clientErrorLog.log("connection " + session.id + " from "
                    + ctx.channel().remoteAddress() + ": " + err.message() + "; closing it");
            enqueue(
                    CompletableFuture.completedFuture(new Reply.ThenClose(Reply.error("ERR " + err.message()))),
                    null,
                    KeyOrder.Access.NONE,
                    new long[2],
                    share(),
                    true);
            return;
        }
        byte[][] args = (byte[][]) msg;
        if (crossProtocol(args[0])) {
            // An HTTP request sent to the RESP port (e.g. a web page's fetch to 127.0.0.1): its body would run as
            // commands. Close at once, as Redis does since 3.2.7.
            clientErrorLog.log(
                    "connection " + session.id + " from " + ctx.channel().remoteAddress()
                            + ": possible cross-protocol attack ('"
                            + Commands.printable(new String(args[0], java.nio.charset.StandardCharsets.US_ASCII))
                            + "' sent to the RESP port); closing it");
            stats.protocolError();
            closing = true;
            dropAll();
            idle = true;
            ctx.close();
            return;
        }
        Commands.Spec spec = commands.spec(args[0]);
        KeyOrder.Access access = spec == null ? KeyOrder.Access.NONE : spec.access(args);
        CompletableFuture<?> after = order.dependencies(access);
        long[] held = {0, 0};
        long estimate = commands.replyEstimate(spec, args);
        ReplyMemory.Share share = share();
        CompletableFuture<Reply> reply;
        boolean started = waiting.isEmpty() && mayStart(estimate, share);
        if (started) {
            reply = start(args, spec, after, held, estimate, share);
        } else {
            reply = new CompletableFuture<>();
            waiting.addLast(new Waiting(args, spec, after, reply, held, estimate, share));
        }
        order.register(access, reply);
        if (spec != null && spec.name().equals("QUIT")) {
            // Until 2026-11-27 a request pipelined after QUIT still ran when an earlier reply was outstanding (the
            // connection closed only once QUIT's reply reached the head of the queue), though its client never saw
            // a reply: "SET a 1 / QUIT / SET b 2" in one packet could store b.
            quit = true;
            ctx.channel().config().setAutoRead(false);
        }
        enqueue(reply, spec == null ? null : spec.name(), access, held, share, !started);
        if ((pending.size() >= maxPending || !ctx.channel().isWritable())
                && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /**
     * Whether a request whose reply may hold {@code estimate} bytes may start: one always may when none runs and no
     * reply waits to be written; otherwise the connection's reply bytes — ready ones plus the running requests' worst
     * cases, this one's too — must stay within its budget, and the server's within {@link ReplyMemory}, where the
     * request counts under {@code share}, the partition of its tenant.
     */
    private boolean mayStart(long estimate, ReplyMemory.Share share) {
        if (running == 0 && readyBytes == 0) {
            return true;
        }
        return readyBytes + reserved + estimate <= replyBudget && memory.roomFor(share, reservation(estimate), wake);
    }

    /**
     * The count a request decoded now is charged to: the session's partition as it stands when the request starts or
     * queues (an AUTH earlier in the pipeline has run by then, or queues ahead of it).
     */
    private ReplyMemory.Share share() {
        return memory.share(session.partition == null ? null : session.partition.name());
    }

    /**
     * What a running request reserves of the server-wide budget: its worst case, but at most this connection's budget
     * (an MGET of many keys has a worst case of gigabytes; reserving that would stop every other connection for one
     * request, which runs alone on its connection anyway).
     */
    private long reservation(long estimate) {
        return Math.min(estimate, replyBudget);
    }

    /**
     * Starts a request and returns its reply future itself (what later requests on the same keys wait for, and what
     * {@link #drain} writes): its accounting hops onto the event loop separately ({@link #completed}), so that neither
     * waits for the other. {@code held[1]} tells which came first: 1 accounted, 2 written before it was accounted.
     */
    private CompletableFuture<Reply> start(
            byte[][] args,
            Commands.Spec spec,
            CompletableFuture<?> after,
            long[] held,
            long estimate,
            ReplyMemory.Share share) {
        running++;
        reserved += estimate;
        memory.add(share, reservation(estimate));
        if (readyBytes + reserved > peakHeld) {
            peakHeld = readyBytes + reserved;
        }
        CompletableFuture<Reply> reply = commands.execute(session, args, spec, after);
        reply.whenComplete((r, e) -> {
            if (ctx.executor().inEventLoop()) {
                completed(r, held, estimate, share); // at once, inside the read: enqueue or channelReadComplete drains
            } else {
                ctx.executor().execute(() -> {
                    completed(r, held, estimate, share);
                    drain(true);
                });
            }
        });
        return reply;
    }

    /** On the event loop: a started request's reply is ready; it counts with its real size until written. */
    private void completed(Reply r, long[] held, long estimate, ReplyMemory.Share share) {
        running--;
        reserved -= estimate;
        memory.add(share, -reservation(estimate));
        if (r != null && !closing && held[1] == 0) {
            long size = Reply.sizeOf(r);
            held[0] = size;
            held[1] = 1;
            readyBytes += size;
            memory.add(share, size);
            if (readyBytes + reserved > peakHeld) {
                peakHeld = readyBytes + reserved;
            }
        }
        startWaiting();
    }

    /**
     * Starts the waiting requests that now fit, in order. Not re-entered: a request that completes at once (PING, an
     * error) calls back into here through {@link #completed}; the loop already running picks up the next one, so a long
     * queue of such requests does not nest one stack frame chain per request.
     */
    private void startWaiting() {
        if (startingWaiting) {
            return;
        }
        startingWaiting = true;
        try {
            startWaitingLoop();
        } finally {
            startingWaiting = false;
        }
    }

    private void startWaitingLoop() {
        while (!closing
                && !waiting.isEmpty()
                && mayStart(waiting.peekFirst().estimate(), waiting.peekFirst().share())) {
            Waiting w = waiting.pollFirst();
            start(w.args(), w.spec(), w.after(), w.held(), w.estimate(), w.share())
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            w.reply().completeExceptionally(e);
                        } else {
                            w.reply().complete(r);
                        }
                    });
        }
    }

    /** A written reply no longer counts as held (or, written before it was accounted, never will). */
    private void written(Pending p) {
        long[] held = p.held();
        if (held[1] == 1) {
            readyBytes -= held[0];
            memory.add(p.share(), -held[0]);
        }
        held[1] = 2;
    }

    /** The connection is closing: nothing it holds counts any more, and nothing waiting starts. */
    private void dropAll() {
        for (Pending p : pending) {
            written(p);
        }
        pending.clear();
        waiting.clear();
        readyBytes = 0;
    }

    /** Runs on every request: compares bytes, allocating nothing unless the length already matches. */
    private static boolean crossProtocol(byte[] name) {
        if (name.length != 4 && name.length != 5) {
            return false;
        }
        String n = new String(name, java.nio.charset.StandardCharsets.US_ASCII);
        return n.equalsIgnoreCase("POST") || n.equalsIgnoreCase("Host:");
    }

    /**
     * Queues a reply for writing in order. {@code drainOnCompletion}: whether its completion must trigger {@link #drain}
     * here; a request {@link #start}ed at once does that from its own completion (one hop onto the event loop per
     * request, not two).
     */
    private void enqueue(
            CompletableFuture<Reply> f,
            String command,
            KeyOrder.Access access,
            long[] held,
            ReplyMemory.Share share,
            boolean drainOnCompletion) {
        pending.addLast(new Pending(f, command, access, System.nanoTime(), held, share, tenantPartition()));
        if (pending.size() > peakPending) {
            peakPending = pending.size();
        }
        idle = false;
        if (!f.isDone()) {
            if (!drainOnCompletion) {
                return;
            }
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
                dropAll();
                idle = true;
                ctx.close();
                return;
            }
            Pending p = pending.pollFirst();
            order.release(p.access(), p.reply());
            stats.completed(p.command(), System.nanoTime() - p.startNanos(), p.tenantPartition());
            written(p);
            if (r instanceof Reply.ThenClose) {
                closing = true;
                dropAll();
                ctx.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
                idle = true;
                return;
            }
            ctx.write(buf);
            wrote = true;
        }
        unflushed |= wrote;
        if (wrote) {
            startWaiting(); // reply memory was freed
        }
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

    /** The partition of the tenant this connection authenticated as, or null before AUTH (or without tenants). */
    String tenantPartition() {
        Session s = session;
        return s.tenant == null || s.partition == null ? null : s.partition.name();
    }

    /** The connection's CLIENT SETNAME name, or null. */
    String clientName() {
        return session.clientName;
    }

    long peakHeld() {
        return peakHeld;
    }

    int peakPending() {
        return peakPending;
    }

    /** No reply outstanding, and every reply written has left for the client (or the connection is closed). */
    boolean idle() {
        if (!idle) {
            return false;
        }
        ChannelHandlerContext c = this.ctx;
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
