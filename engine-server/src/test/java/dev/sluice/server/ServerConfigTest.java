package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** server.* keys are typed options next to the node's keys; bad input names the key; the CLI exits 2 on it. */
class ServerConfigTest {
    @TempDir
    Path dir;

    @Test
    void readsServerAndNodeKeysFromOneFile() throws Exception {
        Path f = dir.resolve("node.properties");
        Files.writeString(
                f,
                "data.dir = data\npartitions = a,b\nserver.port = 7000\nserver.http.port = 7001\n"
                        + "server.tenant.t1.secret = pw\nserver.tenant.t1.partition = b\nserver.tenant.a.secret = x\n");
        ServerConfig c = ServerConfig.fromProperties(f);
        assertThat(c.get(ServerConfig.PORT)).isEqualTo(7000);
        assertThat(c.get(ServerConfig.HTTP_PORT)).isEqualTo(7001);
        assertThat(c.get(ServerConfig.HOST)).isEqualTo("127.0.0.1");
        assertThat(c.node().dataDir()).isEqualTo(dir.resolve("data").toAbsolutePath());
        assertThat(c.tenants().get("t1").partition()).isEqualTo("b");
        assertThat(c.tenants().get("a").partition()).isEqualTo("a"); // default: the partition named like the tenant
        assertThat(c.authRequired()).isTrue();
        assertThat(c.toString()).doesNotContain("pw");
    }

    /**
     * Tenants on two or more partitions get a per-partition share of the async pool unless the file sets one: without it
     * one tenant's SCAN flood took the pool's whole queue (another tenant's GETs 200/s → 9/s; probe, 2026-11-28).
     */
    @Test
    void tenantsOnSeveralPartitionsShareTheAsyncPoolUnlessTheFileSaysOtherwise() throws Exception {
        Path f = dir.resolve("node.properties");
        String two = "data.dir = data\npartitions = a,b\nserver.tenant.t1.secret = x\nserver.tenant.t1.partition = a\n"
                + "server.tenant.t2.secret = y\nserver.tenant.t2.partition = b\n";
        Files.writeString(f, two);
        assertThat(ServerConfig.fromProperties(f).node().asyncPartitionThreads())
                .as("reads and writes 1 each of the default 4 threads")
                .isEqualTo(1);
        Files.writeString(f, two + "async.threads = 8\n");
        assertThat(ServerConfig.fromProperties(f).node().asyncPartitionThreads())
                .isEqualTo(3);
        Files.writeString(f, two + "async.partition.threads = 0\n");
        assertThat(ServerConfig.fromProperties(f).node().asyncPartitionThreads())
                .as("set in the file: kept")
                .isZero();
        Files.writeString(
                f,
                "data.dir = data\npartitions = a,b\nserver.tenant.t1.secret = x\nserver.tenant.t1.partition = a\n"
                        + "server.tenant.t2.secret = y\nserver.tenant.t2.partition = a\n");
        assertThat(ServerConfig.fromProperties(f).node().asyncPartitionThreads())
                .as("one partition: nobody to isolate")
                .isZero();
        // with 2 threads, one partition's read and write slot are the whole pool: said, not silently accepted
        java.util.Properties props = new java.util.Properties();
        props.setProperty("async.threads", "2");
        java.util.Map<String, java.util.Map<String, String>> tenants =
                java.util.Map.of("t1", java.util.Map.of("partition", "a"), "t2", java.util.Map.of("partition", "b"));
        assertThat(ServerConfig.isolateTenantsOnThePool(props, tenants))
                .contains("async.threads = 2 leaves no thread for other tenants");
        assertThat(props.getProperty("async.partition.threads")).isEqualTo("1");
        props = new java.util.Properties();
        props.setProperty("async.threads", "3");
        assertThat(ServerConfig.isolateTenantsOnThePool(props, tenants)).isNull();
        Files.writeString(f, two + "async.threads = many\n");
        assertThatThrownBy(() -> ServerConfig.fromProperties(f))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("async.threads");
    }

    @Test
    void aKeyGivenTwiceIsAnErrorThatNeverShowsASecret() throws Exception {
        Path f = dir.resolve("node.properties");
        Files.writeString(
                f,
                "data.dir = data\npartitions = a\nserver.tenant.a.secret = first-pw\nserver.tenant.a.secret = second-pw\n");
        assertThatThrownBy(() -> ServerConfig.fromProperties(f))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("key server.tenant.a.secret is given twice; give it once")
                .satisfies(e ->
                        assertThat(e.getMessage()).doesNotContain("first-pw").doesNotContain("second-pw"));
        Files.writeString(f, "data.dir = data\nserver.port = 7000\nserver.port = 7001\n");
        assertThatThrownBy(() -> ServerConfig.fromProperties(f))
                .hasMessageContaining("key server.port is given twice ('7000', then '7001')");
    }

    @Test
    void aRequestLimitBelowTheBulkLimitIsRefusedNamingBoth() {
        assertThatThrownBy(() -> TestServers.config(dir, "server.max.request.bytes", "4096"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.max.request.bytes = 4096 is below server.max.bulk.bytes = 16778240");
        assertThat(TestServers.config(dir, "server.max.request.bytes", "4096", "server.max.bulk.bytes", "4096")
                        .get(ServerConfig.MAX_REQUEST_BYTES))
                .isEqualTo(4096L);
    }

    @Test
    void badInputNamesTheKeyAndNeverTheSecret() {
        assertThatThrownBy(() -> TestServers.config(dir, "server.prot", "1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown option [server.prot]")
                .hasMessageContaining("server.port");
        assertThatThrownBy(() -> TestServers.config(dir, "server.port", "70000"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.port = '70000' is out of range");
        assertThatThrownBy(() -> TestServers.config(dir, "server.max.bulk.bytes", "lots"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.max.bulk.bytes");
        assertThatThrownBy(() -> TestServers.config(
                        dir, "server.tenant.t.secret", "hunter2", "server.tenant.t.partition", "nope"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.tenant.t.partition = nope is not a partition of the node")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> TestServers.config(dir, "partitions", "t", "server.tenant.t.partition", "t"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.tenant.t.secret is missing or empty");
        assertThatThrownBy(() -> TestServers.config(dir, "server.tenant.t.password", "hunter2"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown tenant key(s) [server.tenant.t.password]")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> TestServers.config(dir, "no.such.node.key", "1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("no.such.node.key");
    }

    @Test
    void cliExitsTwoOnBadConfigAndOneWhenThePortIsTaken() throws Exception {
        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "data.dir = d\nserver.port = -1\n");
        assertThat(runCli("--config", bad.toString())).startsWith("2:").contains("server.port = '-1' is out of range");
        assertThat(runCli("--config", dir.resolve("missing.properties").toString()))
                .startsWith("2:")
                .contains("does not exist");
        assertThat(runCli("--no-such-flag")).startsWith("2:");
        Path same = dir.resolve("same.properties"); // each port free alone: refused before a store is created
        Files.writeString(same, "data.dir = d3\nserver.port = 16399\nserver.http.port = 16399\n");
        assertThat(runCli("--config", same.toString())).startsWith("2:").contains("must differ");
        assertThat(dir.resolve("d3")).doesNotExist();
        // the same port on two different addresses is not a conflict (only the same address or a wildcard is)
        int free;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            free = probe.getLocalPort();
        }
        ServerConfig twoHosts = TestServers.config(
                dir,
                "server.host",
                "127.0.0.2",
                "server.port",
                Integer.toString(free),
                "server.http.port",
                Integer.toString(free));
        try (SluiceServer s2 = SluiceServer.start(twoHosts)) {
            assertThat(s2.httpPort()).isEqualTo(free);
        }
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Path cfg = dir.resolve("taken.properties");
            Files.writeString(cfg, "data.dir = d2\nserver.http.port = 0\nserver.port = " + taken.getLocalPort() + "\n");
            assertThat(runCli("--config", cfg.toString()))
                    .startsWith("1:")
                    .contains("cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    private static String runCli(String... args) {
        PrintStream err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            int code = ServerMain.run(args);
            return code + ":" + buf.toString(StandardCharsets.UTF_8);
        } finally {
            System.setErr(err);
        }
    }
}
