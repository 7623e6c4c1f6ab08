package dev.sluice.server;

import dev.sluice.core.ConfigException;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sluice serve [--config FILE]}: runs a node server until SIGTERM/SIGINT, then shuts down gracefully (stop
 * accepting, finish admitted requests, close the node). Exit codes: 0 after a clean shutdown, 1 when the node cannot
 * start (store refused, port taken), 2 on bad input (an argument or the configuration file).
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a Sluice node behind a Redis-protocol (RESP2) port and an HTTP port (/ dashboard, /status, /metrics).",
            "Configuration: the node's properties file (data.dir, partitions, profile, controls, ...) plus server.*"
                    + " keys (README, section Server). Stops gracefully on SIGTERM."
        })
public final class ServerMain implements Callable<Integer> {
    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "properties file (node keys and server.* keys); without it: data.dir = ./sluice-data,"
                    + " one partition 'default', RESP2 on 127.0.0.1:6380, HTTP on 127.0.0.1:8380")
    Path config;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "data.dir when no --config is given; default: ./sluice-data")
    Path dataDir;

    public static void main(String[] args) {
        // the server's logging setup, under its own name so it never collides with another module's logback.xml on a
        // shared classpath; -Dlogback.configurationFile still wins
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "sluice-server-logback.xml");
        }
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new ServerMain()).execute(args);
    }

    @Override
    public Integer call() {
        ServerConfig cfg;
        try {
            if (config != null) {
                if (dataDir != null) {
                    System.err.println("sluice serve: give data.dir in the config file, not --data-dir, with --config");
                    return 2;
                }
                if (!Files.isRegularFile(config)) {
                    System.err.println("sluice serve: config file " + config + " does not exist or is not a file");
                    return 2;
                }
                cfg = ServerConfig.fromProperties(config);
            } else {
                Path dir = dataDir != null ? dataDir : Path.of("sluice-data");
                cfg = ServerConfig.of(SluiceConfig.defaults(dir.toAbsolutePath()));
            }
        } catch (ConfigException e) {
            System.err.println("sluice serve: bad configuration: " + e.getMessage());
            return 2;
        }
        // SIGTERM and SIGINT end the wait below; the main thread then closes the server and exits 0. Caught from here
        // on: a signal while the node opens is acted on once it is open (a probe, 2026-11-29: SIGTERM in the first
        // 1.5 s of a start ended the JVM with 143 and no graceful close).
        CountDownLatch stop = new CountDownLatch(1);
        for (String sig : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(sig), s -> stop.countDown());
        }
        SluiceServer server;
        try {
            server = SluiceServer.start(cfg);
        } catch (ConfigException e) {
            System.err.println("sluice serve: bad configuration: " + e.getMessage());
            return 2;
        } catch (SluiceException | IllegalStateException | IllegalArgumentException e) {
            System.err.println("sluice serve: cannot start: " + e.getMessage());
            return 1;
        }
        System.err.printf(
                "sluice serve: RESP2 on %s:%d (redis-cli -p %d), dashboard http://%s:%d/ ; stop with Ctrl-C or SIGTERM%n",
                cfg.get(ServerConfig.HOST),
                server.port(),
                server.port(),
                cfg.get(ServerConfig.HTTP_HOST),
                server.httpPort());
        // The hook covers other ways the JVM may exit (close() is idempotent).
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sluice-serve-shutdown"));
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println("sluice serve: shutting down (finishing admitted requests) ...");
        server.close();
        System.err.println("sluice serve: stopped");
        return 0;
    }
}
