package dev.sluice.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The node server in its own JVM ({@code ServerMain}, what {@code ./sluice serve} starts), for end-to-end tests. */
final class ServerProcess {
    private static final String READY = "sluice serve: RESP2 on ";

    private ServerProcess() {}

    /**
     * Starts {@code ServerMain --config cfg} with its output in {@code log} and returns once it says it is listening.
     *
     * @throws AssertionError naming the log when the server exits or is not listening within two minutes
     */
    static Process start(Path cfg, Path log) throws IOException, InterruptedException {
        Process server = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx512m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "dev.sluice.server.ServerMain",
                        "--config",
                        cfg.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            String out = Files.exists(log) ? Files.readString(log, UTF_8) : "";
            if (out.contains(READY)) {
                return server;
            }
            if (server.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the server exited with " + server.exitValue() + " before listening:\n"
                        + Files.readString(log, UTF_8));
            }
        }
        server.destroyForcibly();
        throw new AssertionError("the server was not listening after 120 s:\n" + Files.readString(log, UTF_8));
    }

    /** A port nothing listens on right now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
