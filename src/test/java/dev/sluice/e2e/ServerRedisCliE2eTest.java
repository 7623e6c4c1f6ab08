package dev.sluice.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node server as a user runs it: its own JVM ({@code ServerMain}, what {@code ./sluice serve} starts) with a
 * properties file declaring two tenants, driven by Debian's redis-cli and redis-benchmark, then stopped with SIGTERM:
 * it must exit 0 and every write redis-cli got OK for must be in the store. Skipped when redis-cli is not installed,
 * unless {@code SLUICE_REQUIRE_TOOLS=1} (.ci/run installs redis-tools and sets it): then it fails.
 */
class ServerRedisCliE2eTest {
    @TempDir
    Path dir;

    @Test
    void redisCliAndRedisBenchmarkAgainstAServerStoppedBySigterm() throws Exception {
        boolean present = Files.isExecutable(Path.of("/usr/bin/redis-cli"))
                && Files.isExecutable(Path.of("/usr/bin/redis-benchmark"));
        if (!present && "1".equals(System.getenv("SLUICE_REQUIRE_TOOLS"))) {
            throw new AssertionError("redis-cli/redis-benchmark not installed (apt-get install redis-tools)");
        }
        assumeTrue(present, "redis-tools not installed: skipped");
        int port = ServerProcess.freePort();
        Path cfg = dir.resolve("node.properties");
        Files.writeString(
                cfg,
                String.join(
                        "\n",
                        "data.dir = data",
                        "partitions = alpha,beta",
                        "server.port = " + port,
                        "server.http.port = 0",
                        "server.tenant.alice.secret = a-secret",
                        "server.tenant.alice.partition = alpha",
                        "server.tenant.bob.secret = b-secret",
                        "server.tenant.bob.partition = beta",
                        ""));
        Path log = dir.resolve("server.log");
        Process server = ServerProcess.start(cfg, log);
        try {
            String p = String.valueOf(port);
            assertThat(cli("-p", p, "get", "k")).startsWith("NOAUTH Authentication required.");
            assertThat(cli("-p", p, "--user", "alice", "--pass", "wrong", "ping"))
                    .contains("WRONGPASS");
            List<String> alice = List.of("-p", p, "--user", "alice", "--pass", "a-secret");
            assertThat(cli(alice, "ping")).isEqualTo("PONG");
            assertThat(cli(alice, "set", "greeting", "hello world")).isEqualTo("OK");
            assertThat(cli(alice, "get", "greeting")).isEqualTo("hello world");
            assertThat(cli(alice, "mset", "k1", "v1", "k2", "v2", "k3", "v3")).isEqualTo("OK");
            assertThat(cli(alice, "mget", "k1", "nokey", "k3")).isEqualTo("v1\n\nv3");
            assertThat(cli(alice, "exists", "k1", "k2", "nokey")).isEqualTo("2");
            assertThat(cli(alice, "del", "k2")).isEqualTo("1");
            assertThat(cli(alice, "--scan", "--pattern", "k*").lines().sorted().toList())
                    .containsExactly("k1", "k3");
            assertThat(cli(alice, "set", "t", "v", "ex", "5")).startsWith("ERR SET EX is not supported");
            assertThat(cli(alice, "hset", "h", "f", "v")).startsWith("ERR unknown command 'hset'");
            assertThat(cli(alice, "info", "sluice")).contains("connection_partition:alpha");
            assertThat(cli(alice, "command", "count")).matches("\\d+");
            // bob's partition is separate
            List<String> bob = List.of("-p", p, "--user", "bob", "--pass", "b-secret");
            assertThat(cli(bob, "get", "greeting")).isEmpty();
            assertThat(cli(bob, "--scan")).isEmpty();
            // a short redis-benchmark, pipelined, as bob: it completes and the server reports no error
            List<String> bench = new ArrayList<>(List.of(
                    "redis-benchmark",
                    "-p",
                    p,
                    "--user",
                    "bob",
                    "-a",
                    "b-secret",
                    "-t",
                    "set,get",
                    "-n",
                    "20000",
                    "-P",
                    "16",
                    "-c",
                    "10",
                    "--csv"));
            String out = run(bench, 300);
            assertThat(out).contains("\"SET\"").contains("\"GET\"").doesNotContainIgnoringCase("error");
            assertThat(cli(bob, "info", "stats")).contains("rejected_busy:0");
        } finally {
            server.destroy(); // SIGTERM
        }
        assertThat(server.waitFor(120, TimeUnit.SECONDS))
                .as("server stops after SIGTERM")
                .isTrue();
        String output = Files.readString(log);
        assertThat(server.exitValue()).as(output).isZero();
        assertThat(output)
                .contains("shutting down (finishing admitted requests)")
                .contains("sluice serve: stopped");
        assertThat(output).doesNotContain("a-secret").doesNotContain("b-secret");
        // every write acknowledged to redis-cli is in the store
        try (SluiceNode node = Sluice.open(SluiceConfig.builder(dir.resolve("data"))
                .partitions("alpha", "beta")
                .build())) {
            Partition alpha = node.partition("alpha");
            assertThat(alpha.get("greeting".getBytes(UTF_8))).isEqualTo("hello world".getBytes(UTF_8));
            assertThat(alpha.get("k1".getBytes(UTF_8))).isEqualTo("v1".getBytes(UTF_8));
            assertThat(alpha.get("k2".getBytes(UTF_8))).isNull();
            assertThat(node.partition("beta").get("greeting".getBytes(UTF_8))).isNull();
        }
    }

    private static String cli(String... args) throws Exception {
        return cli(List.of(), args);
    }

    private static String cli(List<String> conn, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("redis-cli");
        cmd.addAll(conn);
        cmd.addAll(List.of(args));
        return run(cmd, 60).strip();
    }

    private static String run(List<String> cmd, int timeoutSeconds) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
                .as(String.join(" ", cmd))
                .isTrue();
        // redis-cli warns about a password on the command line on stderr; drop that line
        return new String(out, UTF_8)
                .lines()
                .filter(l -> !l.startsWith("Warning: Using a password"))
                .reduce((a, b) -> a + "\n" + b)
                .orElse("");
    }
}
