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
}
