package dev.sluice.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP port: {@code /metrics} (Prometheus text format from the node's Micrometer registry), {@code /status} (JSON:
 * partitions, latest snapshots, per-second history, recent control events) and the dashboard ({@code /} and its
 * assets, served from the jar's {@code dashboard/} resources: no CDN). GET and HEAD only. Sharable (stateless).
 */
@ChannelHandler.Sharable
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(HttpHandler.class);
    private static final Map<String, String> ASSETS = Map.of(
            "/", "index.html",
            "/index.html", "index.html",
            "/dashboard.js", "dashboard.js",
            "/chart.js", "chart.js",
            "/dashboard.css", "dashboard.css");

    private final PrometheusMeterRegistry registry;
    private final StatusSampler status;
    private final Map<String, byte[]> assetCache = new ConcurrentHashMap<>();

    HttpHandler(PrometheusMeterRegistry registry, StatusSampler status) {
        this.registry = registry;
        this.status = status;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            // Netty's decoder discards everything after a bad message on this connection: answer and close, or the
            // client waits forever for replies to the requests it sends next (a keep-alive scraper would time out)
            send(
                    ctx,
                    req,
                    HttpResponseStatus.BAD_REQUEST,
                    "text/plain; charset=utf-8",
                    bytes("bad request: "
                            + shortText(String.valueOf(req.decoderResult().cause())) + "\n"),
                    true);
            return;
        }
        if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
            FullHttpResponse resp = response(
                    req, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", bytes("GET only\n"));
            resp.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD"); // required with a 405 (RFC 9110 §15.5.6)
            write(ctx, req, resp, false);
            return;
        }
        String path;
        try {
            String target = req.uri();
            path = new QueryStringDecoder(target.startsWith("/") ? target : absoluteFormPath(target)).path();
        } catch (IllegalArgumentException e) { // a malformed %-escape, or a URI that does not parse
            send(
                    ctx,
                    req,
                    HttpResponseStatus.BAD_REQUEST,
                    "text/plain; charset=utf-8",
                    bytes("bad request: the path " + shortText(req.uri()) + " is not a valid URI ("
                            + shortText(String.valueOf(e.getMessage())) + ")\n"),
                    false);
            return;
        }
        try {
            switch (path) {
                case "/metrics" ->
                    send(
                            ctx,
                            req,
                            HttpResponseStatus.OK,
                            "text/plain; version=0.0.4; charset=utf-8",
                            bytes(registry.scrape()));
                case "/status" -> send(ctx, req, HttpResponseStatus.OK, "application/json", bytes(status.statusJson()));
                default -> {
                    String asset = ASSETS.get(path);
                    if (asset == null) {
                        send(
                                ctx,
                                req,
                                HttpResponseStatus.NOT_FOUND,
                                "text/plain; charset=utf-8",
                                bytes("not found: " + path + " (try /, /status, /metrics)\n"));
                    } else {
                        send(ctx, req, HttpResponseStatus.OK, contentType(asset), asset(asset));
                    }
                }
            }
        } catch (RuntimeException e) {
            log.warn("HTTP {} failed", path, e);
            send(
                    ctx,
                    req,
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "text/plain; charset=utf-8",
                    bytes("unavailable: " + e.getMessage() + "\n"));
        }
    }

    private byte[] asset(String name) {
        return assetCache.computeIfAbsent(name, n -> {
            try (InputStream in = HttpHandler.class.getResourceAsStream("/dashboard/" + n)) {
                if (in == null) {
                    throw new IllegalStateException("dashboard asset " + n + " missing from the jar");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read dashboard asset " + n + ": " + e, e);
            }
        });
    }

    private static String contentType(String asset) {
        if (asset.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (asset.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        return "text/css; charset=utf-8";
    }

    /** At most 200 characters of text from the request, for an error body. */
    private static String shortText(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The path of a request target in origin form ({@code /status?x}) or absolute form ({@code
     * http://127.0.0.1:8380/status}, which a client must send to a proxy and a server must accept: RFC 9112 §3.2.2).
     */
    private static String absoluteFormPath(String uri) {
        java.net.URI u = java.net.URI.create(uri);
        if (u.isAbsolute()) {
            String raw = u.getRawPath();
            return (raw == null || raw.isEmpty() ? "/" : raw) + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        }
        return uri;
    }

    private static void send(
            ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus st, String type, byte[] body) {
        send(ctx, req, st, type, body, false);
    }

    private static void send(
            ChannelHandlerContext ctx,
            FullHttpRequest req,
            HttpResponseStatus st,
            String type,
            byte[] body,
            boolean close) {
        write(ctx, req, response(req, st, type, body), close);
    }

    private static FullHttpResponse response(FullHttpRequest req, HttpResponseStatus st, String type, byte[] body) {
        boolean head = req.method().equals(HttpMethod.HEAD);
        ByteBuf content = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, st, content);
        resp.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        resp.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return resp;
    }

    private static void write(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse resp, boolean close) {
        boolean keepAlive = !close && HttpUtil.isKeepAlive(req);
        if (keepAlive) {
            resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(resp);
        } else {
            resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
