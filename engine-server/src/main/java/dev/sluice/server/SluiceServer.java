package dev.sluice.server;

import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceException;
import dev.sluice.core.SluiceNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Sluice node behind a RESP2 (Redis protocol) port and an HTTP port (docs/architecture.md §3.8). {@link #start} opens
 * the node with a Prometheus registry and binds both ports; {@link #close} shuts down gracefully: it stops accepting
 * connections and reading requests, lets every request already read finish and its reply be written (up to {@code
 * server.shutdown.timeout.ms}), closes the connections and the HTTP port, then closes the node.
 *
 * <p>Threads: {@code server.io.threads} event loops for RESP2 (they never block: requests use the partition's async
 * API), one for HTTP, one scheduler that samples the status once a second. Thread-safe.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);

    private final ServerConfig config;
    private final SluiceNode node;
    private final PrometheusMeterRegistry registry;
    private final ServerStats stats;
    private final StatusSampler status;
    private final Commands commands;
    private final ReplyMemory replyMemory;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final EventLoopGroup http;
    /** HTTP connections open at once; more are closed at accept (the dashboard needs a handful). */
    static final int MAX_HTTP_CONNECTIONS = 256;
    /** An HTTP connection that sends nothing for this long is closed (a half-sent request holds no slot forever). */
    static final int HTTP_READ_TIMEOUT_SECONDS = 30;
    /** An HTTP request not answered this long after its first byte closes its connection (slowloris). */
    static final int HTTP_REQUEST_DEADLINE_SECONDS = 10;

    private final RequestMemory requestMemory;
    private final ChannelGroup connections = new DefaultChannelGroup("resp", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup httpConnections = new DefaultChannelGroup("http", GlobalEventExecutor.INSTANCE);
    private final Map<Channel, RespHandler> handlers = new ConcurrentHashMap<>();

    private final ScheduledExecutorService scheduler;
    private final AtomicLong connectionIds = new AtomicLong();
    private Channel respChannel;
    private Channel httpChannel;
    private volatile boolean closed;

    private SluiceServer(ServerConfig config) {
        this.config = config;
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Sluice.validate(config.node());
        this.node = Sluice.open(config.node(), registry);
        this.stats = new ServerStats(registry);
        this.status = new StatusSampler(node, config, stats, Clock.systemUTC());
        status.connectionsOf(p -> (int) handlers.values().stream()
                .filter(h -> p.equals(h.tenantPartition()))
                .count());
        this.commands = new Commands(node, config, stats, status);
        this.requestMemory =
                // 0 = a quarter of the heap, as server.max.reply.bytes
                new RequestMemory(
                        ReplyMemory.capFor(config.get(ServerConfig.MAX_REQUEST_BYTES_TOTAL)),
                        servedPartitions(config, node));
        this.replyMemory = new ReplyMemory(
                ReplyMemory.capFor(config.get(ServerConfig.MAX_REPLY_BYTES)), servedPartitions(config, node));
        this.boss = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("sluice-resp-accept", true), NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(
                config.get(ServerConfig.IO_THREADS),
                new DefaultThreadFactory("sluice-resp", true),
                NioIoHandler.newFactory());
        this.http = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("sluice-http", true), NioIoHandler.newFactory());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-server-status");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the node and binds both ports.
     *
     * @throws dev.sluice.core.ConfigException on a bad configuration
     * @throws SluiceException when the node cannot open or a port cannot be bound (naming the address)
     */
    public static SluiceServer start(ServerConfig config) {
        checkPorts(config);
        SluiceServer s = new SluiceServer(config);
        try {
            s.bind();
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void bind() {
        int maxArray = config.get(ServerConfig.MAX_ARRAY_LENGTH);
        int maxBulk = config.get(ServerConfig.MAX_BULK_BYTES);
        int maxInline = config.get(ServerConfig.MAX_INLINE_BYTES);
        long maxRequest = config.get(ServerConfig.MAX_REQUEST_BYTES);
        boolean authRequired = config.authRequired();
        long authTimeoutMs = config.get(ServerConfig.AUTH_TIMEOUT_MS);
        int maxPending = config.get(ServerConfig.MAX_PENDING);
        long replyBudget = config.get(ServerConfig.MAX_REPLY_BYTES_PER_CONNECTION);
        int maxConnections = maxConnections(config.get(ServerConfig.MAX_CONNECTIONS));
        ServerBootstrap resp = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .handler(new ConnectionSlots(maxConnections))
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (closed) {
                            ch.close();
                            return;
                        }
                        if (ConnectionSlots.refused(ch)) {
                            stats.connectionRefused();
                            ch.writeAndFlush(Unpooled.copiedBuffer(
                                            "-ERR max number of clients reached\r\n", StandardCharsets.US_ASCII))
                                    .addListener(ChannelFutureListener.CLOSE);
                            return;
                        }
                        Session session = new Session(connectionIds.incrementAndGet(), node.defaultPartition());
                        RespHandler h = new RespHandler(commands, stats, maxPending, session, replyMemory, replyBudget);
                        handlers.put(ch, h);
                        ch.closeFuture().addListener(f -> handlers.remove(ch));
                        connections.add(ch);
                        ch.pipeline()
                                .addLast(
                                        new RespDecoder(
                                                maxArray,
                                                maxBulk,
                                                maxInline,
                                                maxRequest,
                                                () -> authRequired && session.tenant == null,
                                                requestMemory,
                                                () -> session.partition == null ? null : session.partition.name()),
                                        h);
                        if (authRequired && authTimeoutMs > 0) {
                            // a tenant-isolation probe (2026-11-28): 50 idle sockets that never sent a byte held a
                            // 50-connection cap, and every tenant's AUTH got "max number of clients reached"
                            var deadline = ch.eventLoop()
                                    .schedule(
                                            () -> {
                                                if (session.tenant == null && ch.isActive()) {
                                                    stats.authTimeout();
                                                    // closed whether or not the line can be written: a client that
                                                    // stopped reading kept the socket until shutdown (review)
                                                    ch.writeAndFlush(Unpooled.copiedBuffer(
                                                            "-ERR not authenticated within server.auth.timeout.ms;"
                                                                    + " closing\r\n",
                                                            StandardCharsets.US_ASCII));
                                                    ch.close();
                                                }
                                            },
                                            authTimeoutMs,
                                            TimeUnit.MILLISECONDS);
                            // a closed connection does not stay on the heap until its deadline
                            ch.closeFuture().addListener(f -> deadline.cancel(false));
                        }
                    }
                });
        respChannel = bindOrExplain(
                resp, config.get(ServerConfig.HOST), config.get(ServerConfig.PORT), "server.host/server.port");
        ServerBootstrap web = new ServerBootstrap()
                .group(http)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (httpConnections.size() >= MAX_HTTP_CONNECTIONS) {
                            ch.close(); // the dashboard needs a handful; hundreds are a client gone wrong
                            return;
                        }
                        httpConnections.add(ch);
                        ch.pipeline()
                                .addLast(new ReadTimeoutHandler(HTTP_READ_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                                .addLast(new RequestDeadline(HTTP_REQUEST_DEADLINE_SECONDS, TimeUnit.SECONDS))
                                .addLast(new HttpServerCodec(8192, 16 * 1024, 16 * 1024))
                                .addLast(new HttpObjectAggregator(64 * 1024))
                                .addLast(new HttpHandler(registry, status));
                    }
                });
        httpChannel = bindOrExplain(
                web,
                config.get(ServerConfig.HTTP_HOST),
                config.get(ServerConfig.HTTP_PORT),
                "server.http.host/server.http.port");
        status.ports(port(), httpPort());
        status.sample();
        scheduler.scheduleAtFixedRate(this::sampleQuietly, 1, 1, TimeUnit.SECONDS);
        log.info(
                "Sluice server: RESP2 on {}, HTTP (dashboard /, /status, /metrics) on http://{}, partitions {}, auth {}",
                respChannel.localAddress(),
                hostPort((InetSocketAddress) httpChannel.localAddress()),
                node.partitionNames(),
                config.authRequired() ? "required (" + config.tenants().size() + " tenants)" : "off");
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static Channel bindOrExplain(ServerBootstrap b, String host, int port, String keys) {
        try {
            return b.bind(host, port).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new SluiceException("cannot listen on " + host + ":" + port + " (" + keys + "): " + explain(e), e);
        }
    }

    private static String explain(Exception e) {
        if (e instanceof java.nio.channels.UnresolvedAddressException) {
            return "the host name does not resolve";
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /**
     * Before the node opens: both ports can be bound (a fixed port only; 0 means any free port). A port in use or a
     * host that does not resolve then fails the start before a store is created or opened.
     */
    private static void checkPorts(ServerConfig config) {
        int resp = config.get(ServerConfig.PORT), http = config.get(ServerConfig.HTTP_PORT);
        if (resp != 0
                && resp == http
                && sameOrWildcard(config.get(ServerConfig.HOST), config.get(ServerConfig.HTTP_HOST))) {
            // each port alone is free, but the second bind would fail after the store was opened
            throw new dev.sluice.core.ConfigException(
                    "server.port and server.http.port are both " + resp + ": the RESP and HTTP ports must differ");
        }
        checkPort(config.get(ServerConfig.HOST), config.get(ServerConfig.PORT), "server.host/server.port");
        checkPort(
                config.get(ServerConfig.HTTP_HOST),
                config.get(ServerConfig.HTTP_PORT),
                "server.http.host/server.http.port");
    }

    /** Whether two listen addresses overlap: the same address, or either one all of this machine's (0.0.0.0, ::). */
    private static boolean sameOrWildcard(String a, String b) {
        try {
            java.net.InetAddress x = java.net.InetAddress.getByName(a), y = java.net.InetAddress.getByName(b);
            return x.equals(y) || x.isAnyLocalAddress() || y.isAnyLocalAddress();
        } catch (java.net.UnknownHostException e) {
            return a.equals(b); // checkPort names the host that does not resolve
        }
    }

    private static void checkPort(String host, int port, String keys) {
        java.net.InetSocketAddress a = new java.net.InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new SluiceException(
                    "cannot listen on " + host + ":" + port + " (" + keys + "): the host name does not resolve");
        }
        if (port == 0) {
            return;
        }
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(a);
        } catch (java.io.IOException e) {
            throw new SluiceException("cannot listen on " + host + ":" + port + " (" + keys + "): " + explain(e), e);
        }
    }

    /**
     * {@code server.max.connections}, counted on the accepting thread in accept order. The check was made in each
     * connection's initializer, which runs on that connection's own event loop: two sockets accepted together could be
     * initialized in either order (or both pass the check), so the later one was served and the earlier one refused, or
     * the cap was passed by one (a verify on 2026-11-29 met it: the third of three sockets on a 2-connection server was
     * served and the second refused). A slot is taken here before the connection reaches its event loop and given back
     * when it closes.
     */
    @ChannelHandler.Sharable
    static final class ConnectionSlots extends ChannelInboundHandlerAdapter {
        private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf("sluice.refused");
        private final int max;
        private final AtomicInteger taken = new AtomicInteger();

        ConnectionSlots(int max) {
            this.max = max;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                if (taken.incrementAndGet() > max) {
                    taken.decrementAndGet();
                    child.attr(REFUSED).set(Boolean.TRUE);
                } else {
                    child.closeFuture().addListener(f -> taken.decrementAndGet());
                }
            }
            ctx.fireChannelRead(msg);
        }

        /** Whether the accepting thread found no free slot for this connection. */
        static boolean refused(Channel ch) {
            return Boolean.TRUE.equals(ch.attr(REFUSED).get());
        }
    }

    /** {@code server.max.connections}, capped at half the process's file-descriptor limit when the JVM knows it. */
    static int maxConnections(int configured) {
        java.lang.management.OperatingSystemMXBean os =
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long fds = unix.getMaxFileDescriptorCount();
            if (fds > 0 && fds / 2 < configured) {
                log.info(
                        "server.max.connections = {} capped at {}: half the process's file-descriptor limit ({})",
                        configured,
                        Math.max(1, fds / 2),
                        fds);
                return (int) Math.max(1, fds / 2);
            }
        }
        return configured;
    }

    private void sampleQuietly() {
        try {
            if (!closed) {
                status.sample();
            }
        } catch (RuntimeException e) {
            if (!closed) {
                log.warn("status sample failed", e);
            }
        }
    }

    /** The bound RESP2 port. */
    public int port() {
        return ((InetSocketAddress) respChannel.localAddress()).getPort();
    }

    /** The bound HTTP port. */
    public int httpPort() {
        return ((InetSocketAddress) httpChannel.localAddress()).getPort();
    }

    public SluiceNode node() {
        return node;
    }

    public ServerConfig config() {
        return config;
    }

    /**
     * Graceful shutdown, idempotent: stop accepting, stop reading, let the requests already read finish and their
     * replies be written (up to {@code server.shutdown.timeout.ms}), close the connections and the HTTP port, close the
     * node.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long t0 = System.nanoTime();
        if (respChannel != null) {
            respChannel.close().syncUninterruptibly();
        }
        handlers.values().forEach(RespHandler::quiesce);
        long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(config.get(ServerConfig.SHUTDOWN_TIMEOUT_MS));
        boolean drained = false;
        while (!(drained = handlers.values().stream().allMatch(RespHandler::idle)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!drained) {
            log.warn("shutdown: requests still running after server.shutdown.timeout.ms; closing connections anyway");
        }
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        scheduler.shutdownNow();
        if (httpChannel != null) {
            httpChannel.close().syncUninterruptibly();
        }
        httpConnections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        try {
            // what is left of server.shutdown.timeout.ms (at least 1 s) for async requests the node still has queued:
            // until 2026-11-29 the node gave them its own 60 s after the server's bound had passed
            node.close(Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(1), deadline - System.nanoTime())));
        } finally {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            http.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            registry.close();
            log.info("Sluice server closed in {} ms", (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** The most reply bytes an open RESP connection held at once: ready to write, and running at worst (tests). */
    long peakReplyBytes() {
        return handlers.values().stream().mapToLong(RespHandler::peakHeld).max().orElse(0);
    }

    /**
     * The partitions connections can use, the ones the reply bound gives floors to: the tenants' partitions, or without
     * tenants the default partition every connection uses (a floor for a partition no connection reaches would only
     * shrink the bound).
     */
    static java.util.Set<String> servedPartitions(ServerConfig config, SluiceNode node) {
        return config.authRequired()
                ? config.tenantPartitions()
                : java.util.Set.of(node.defaultPartition().name());
    }

    /** The most reply bytes the open RESP connection named {@code clientName} (CLIENT SETNAME) has held (tests). */
    long peakReplyBytes(String clientName) {
        return handlers.values().stream()
                .filter(h -> clientName.equals(h.clientName()))
                .mapToLong(RespHandler::peakHeld)
                .max()
                .orElse(-1);
    }

    /** RESP connections open now (tests). */
    /** Bytes all connections hold of requests not yet received whole (for tests). */
    long requestBytesHeld() {
        return requestMemory.used();
    }

    /** Bytes the SCAN cursors of {@code partition} hold (for tests). */
    long scanCursorBytes(String partition) {
        return commands.scanCursorBytes(partition);
    }

    int openConnections() {
        return handlers.size();
    }

    /** The server-wide reply bound (tests). */
    ReplyMemory replyMemory() {
        return replyMemory;
    }

    /** The most requests any open RESP connection has had in flight at once (tests of back-pressure). */
    int peakPendingPerConnection() {
        return handlers.values().stream()
                .mapToInt(RespHandler::peakPending)
                .max()
                .orElse(0);
    }
}
