package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** The HTTP port: Prometheus text, the status JSON with its per-second history, the dashboard and its assets. */
class HttpTest {
    @TempDir
    static Path dir;

    static SluiceServer server;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        server = TestServers.start(
                dir,
                "partitions",
                "p1,p2",
                "controls",
                "static-admission",
                "control.static-admission.rate",
                "50000",
                "tick.period.ms",
                "100");
        try (Jedis j = TestServers.jedis(server)) {
            for (int i = 0; i < 100; i++) {
                j.set("k" + i, "v");
                j.get("k" + i);
            }
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void metricsArePrometheusTextOfTheNodeAndTheServer() throws Exception {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(r.body())
                .contains("# TYPE sluice_server_commands_total counter")
                .contains("sluice_server_commands_total{command=\"set\"} 100.0")
                .contains("sluice_server_connections")
                .containsPattern("sluice_memtable_watermark\\{partition=\"p1\"")
                .containsPattern("sluice_l0_files\\{partition=\"p2\"");
    }

    @Test
    void statusHasPartitionsHistoryAndControlEvents() throws Exception {
        // the admission rate is set by a control event after the second tick, and the history grows once a second
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonNode s = new ObjectMapper().readTree(get("/status").body());
            assertThat(s.path("history").size()).isGreaterThanOrEqualTo(2);
            assertThat(s.path("events").size()).isGreaterThanOrEqualTo(1);
        });
        HttpResponse<String> r = get("/status");
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode s = new ObjectMapper().readTree(r.body());
        assertThat(s.path("partitions").has("p1")).isTrue();
        assertThat(s.path("partitions").has("p2")).isTrue();
        assertThat(s.path("partitions").path("p1").path("admissionRate").asDouble())
                .isEqualTo(50000.0);
        assertThat(s.path("partitions").path("p1").path("levels").isArray()).isTrue();
        assertThat(s.path("server").path("commands").asLong()).isGreaterThanOrEqualTo(200);
        assertThat(s.path("node").path("controls").get(0).asText()).isEqualTo("static-admission");
        JsonNode last = s.path("history").get(s.path("history").size() - 1);
        assertThat(last.has("commandsPerSecond")).isTrue();
        assertThat(last.path("ioBytesPerSecond").has("WAL")).isTrue();
        assertThat(last.path("partitions").path("p1").has("memtableWatermark")).isTrue();
        JsonNode ev = s.path("events").get(0);
        assertThat(ev.path("controller").asText()).isEqualTo("static-admission");
        assertThat(ev.path("knob").asText()).isNotEmpty();
    }

    @Test
    void dashboardAndAssetsShipInTheJar() throws Exception {
        HttpResponse<String> r = get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        assertThat(r.body()).contains("<canvas", "/chart.js", "/dashboard.js").doesNotContain("http://", "https://");
        for (String asset : new String[] {"/chart.js", "/dashboard.js", "/dashboard.css"}) {
            HttpResponse<String> a = get(asset);
            assertThat(a.statusCode()).as(asset).isEqualTo(200);
            assertThat(a.body()).as(asset).isNotBlank().doesNotContain("https://");
        }
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> post = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/status"))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    /** Sends raw bytes on one connection and returns everything the server wrote until it closed (or 5 s passed). */
    static String raw(String request) throws Exception {
        try (java.net.Socket sock = new java.net.Socket("127.0.0.1", server.httpPort())) {
            sock.setSoTimeout(5000);
            sock.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            sock.getOutputStream().flush();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = sock.getInputStream().read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (java.net.SocketTimeoutException e) {
                got.write("<still open>".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            return got.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Netty's decoder drops everything after a malformed request on its connection, so a 400 that kept the connection
     * alive left the client waiting for replies that never came (found by a probe of the server, 2026-11-28).
     */
    @Test
    void aMalformedRequestGetsA400AndTheConnectionCloses() throws Exception {
        String bigHeader = "GET /status HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n";
        String out = raw(bigHeader + "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out)
                .startsWith("HTTP/1.1 400")
                .containsIgnoringCase("connection: close")
                .doesNotContain("<still open>");
        String badChunk = "POST /status HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assertThat(raw(badChunk)).startsWith("HTTP/1.1 400").doesNotContain("<still open>");
    }

    @Test
    void aMalformedEscapeInThePathIsA400NotADroppedConnection() throws Exception {
        String out = raw("GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(out).startsWith("HTTP/1.1 400").contains("/%zz");
    }

    @Test
    void anAbsoluteFormTargetIsServedAndA405NamesTheAllowedMethods() throws Exception {
        String out = raw("GET http://127.0.0.1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(out).startsWith("HTTP/1.1 200").contains("\"partitions\"");
        String post = raw("DELETE /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(post).startsWith("HTTP/1.1 405").containsIgnoringCase("allow: GET, HEAD");
    }

    /**
     * A client trickling its headers (one line every 2 s) is closed 10 s after its first byte; before 2026-11-28 only
     * the 30-s read timeout applied, so 256 such clients locked the HTTP port out for hours (probe: slowloris).
     */
    @Test
    void aRequestTrickledLineByLineIsClosedAtItsDeadline() throws Exception {
        try (java.net.Socket sock = new java.net.Socket("127.0.0.1", server.httpPort())) {
            sock.setSoTimeout(1_000);
            java.io.OutputStream out = sock.getOutputStream();
            out.write("GET /status HTTP/1.1\r\nHost: x\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            boolean closed = false;
            for (int i = 0; i < 20 && !closed; i++) {
                try {
                    out.write(("X-Slow-" + i + ": 1\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    out.flush();
                    closed = sock.getInputStream().read() == -1;
                } catch (java.net.SocketTimeoutException e) {
                    Thread.sleep(1_000); // still open: one header line every ~2 s
                } catch (java.io.IOException e) {
                    closed = true; // reset by the server
                }
            }
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            assertThat(closed).as("closed by the server").isTrue();
            assertThat(seconds).as("seconds until closed").isBetween(8L, 16L);
        }
        String ok = raw("GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(ok).startsWith("HTTP/1.1 200");
    }
}
