package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The dashboard in a real browser (Debian's headless Chromium): it loads {@code /}, waits for live data, dumps the DOM
 * (every chart reports how many points it drew in {@code data-points}) and takes a screenshot, kept as the build
 * artifact {@code engine-server/target/dashboard.png}. Skipped when no chromium is installed, unless {@code
 * SLUICE_REQUIRE_TOOLS=1} (set by .ci/run, which installs it): then it fails.
 */
class DashboardBrowserTest {
    static String chromium() {
        for (String c : new String[] {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    static void requireTool(String tool, boolean present) {
        if (!present && "1".equals(System.getenv("SLUICE_REQUIRE_TOOLS"))) {
            throw new AssertionError(tool + " is not installed (apt-get install " + tool + "; .ci/run installs it)");
        }
        assumeTrue(present, tool + " is not installed: skipped (apt-get install " + tool + ")");
    }

    @Test
    void dashboardShowsLiveNonEmptyCharts(@TempDir Path dir) throws Exception {
        String chromium = chromium();
        requireTool("chromium", chromium != null);
        AtomicBoolean loading = new AtomicBoolean(true);
        try (SluiceServer server = TestServers.start(
                dir,
                "partitions",
                "tenant-a,tenant-b",
                "controls",
                "static-admission",
                "control.static-admission.rate",
                "20000",
                "tick.period.ms",
                "250")) {
            Thread load = new Thread(() -> {
                try (Jedis j = TestServers.jedis(server)) {
                    int i = 0;
                    while (loading.get()) {
                        j.set("key-" + (i % 5000), "value-" + i);
                        j.get("key-" + (i++ % 5000));
                    }
                }
            });
            load.start();
            try {
                // a few seconds of history with traffic in it
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> HttpTest_status(server).split("\"commandsPerSecond\"").length > 5);
                String url = "http://127.0.0.1:" + server.httpPort() + "/";
                String dom = run(dir, chromium, "--virtual-time-budget=5000", "--dump-dom", url);
                Matcher m = Pattern.compile("id=\"chart-([a-z0-9]+)\" data-points=\"(\\d+)\"")
                        .matcher(dom);
                List<String> charts = new ArrayList<>();
                while (m.find()) {
                    charts.add(m.group(1));
                    assertThat(Integer.parseInt(m.group(2)))
                            .as("points drawn in chart " + m.group(1))
                            .isGreaterThan(0);
                }
                assertThat(charts)
                        .containsExactlyInAnyOrder("throughput", "latency", "watermark", "l0", "admission", "io");
                assertThat(dom).contains("data-state=\"live\"").contains("data-charts-with-data=\"6\"");
                assertThat(dom).contains("tenant-a").contains("static-admission");

                Path png = Path.of("target", "dashboard.png").toAbsolutePath();
                Files.createDirectories(png.getParent());
                Files.deleteIfExists(png);
                run(dir, chromium, "--virtual-time-budget=5000", "--window-size=1400,1500", "--screenshot=" + png, url);
                assertThat(png).exists();
                BufferedImage img = ImageIO.read(png.toFile());
                assertThat(img.getWidth()).isEqualTo(1400);
                Set<Integer> colors = new HashSet<>();
                for (int y = 0; y < img.getHeight(); y += 3) {
                    for (int x = 0; x < img.getWidth(); x += 3) {
                        colors.add(img.getRGB(x, y));
                    }
                }
                // drawn lines in several colors plus text: far more than a blank or an error page
                assertThat(colors.size())
                        .as("distinct colors in the screenshot")
                        .isGreaterThan(50);
            } finally {
                loading.set(false);
                load.join();
            }
        }
    }

    static String HttpTest_status(SluiceServer server) throws Exception {
        return java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/status"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /** Runs headless chromium with a throwaway profile; returns its stdout. */
    static String run(Path dir, String chromium, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory(dir, "chromium")));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .redirectError(dir.resolve("chromium.err").toFile())
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 120 s");
        }
        assertThat(p.exitValue())
                .as("chromium exit code; stderr: " + Files.readString(dir.resolve("chromium.err")))
                .isZero();
        return new String(out, StandardCharsets.UTF_8);
    }
}
