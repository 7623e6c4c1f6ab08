package dev.sluice.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;

/** AUTH tenant secret selects the tenant's partition; tenants cannot see each other's keys. */
class AuthTest {
    @TempDir
    static Path dir;

    static SluiceServer server;

    @BeforeAll
    static void start() {
        server = TestServers.start(
                dir,
                "partitions",
                "alpha,beta",
                "server.tenant.alice.secret",
                "s3cret-a",
                "server.tenant.alice.partition",
                "alpha",
                "server.tenant.bob.secret",
                "s3cret-b",
                "server.tenant.bob.partition",
                "beta");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void everyDataCommandNeedsAuth() {
        try (Jedis j = TestServers.jedis(server)) {
            for (Runnable r : new Runnable[] {
                () -> j.get("k"), () -> j.set("k", "v"), j::ping, () -> j.scan("0"), j::info, () -> j.del("k")
            }) {
                assertThatThrownBy(r::run)
                        .isInstanceOf(JedisDataException.class)
                        .hasMessage("NOAUTH Authentication required.");
            }
        }
        assertThat(server.node().partition("alpha").get("k".getBytes(UTF_8))).isNull();
    }

    /** A HELLO refused for a bad option does not authenticate on the way (AUTH ran first until 2026-11-28). */
    @Test
    void aRefusedHelloLeavesTheSessionUnauthenticated() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThatThrownBy(() -> j.sendCommand(
                            () -> "HELLO".getBytes(UTF_8), "2", "AUTH", "alice", "s3cret-a", "SETNAME", "bad name"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("Client names cannot contain spaces");
            assertThatThrownBy(() -> j.get("k")).hasMessage("NOAUTH Authentication required.");
        }
    }

    @Test
    void wrongSecretOrUnknownTenantIsRefused() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThatThrownBy(() -> j.auth("alice", "wrong"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("WRONGPASS invalid tenant-secret pair");
            assertThatThrownBy(() -> j.auth("mallory", "s3cret-a"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("WRONGPASS invalid tenant-secret pair");
            assertThatThrownBy(() -> j.auth("s3cret-a"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("WRONGPASS invalid tenant-secret pair");
            assertThatThrownBy(() -> j.get("k")).hasMessage("NOAUTH Authentication required.");
        }
    }

    @Test
    void aTenantCannotReadAnothersKeys() {
        try (Jedis a = TestServers.jedis(server);
                Jedis b = TestServers.jedis(server)) {
            assertThat(a.auth("alice", "s3cret-a")).isEqualTo("OK");
            assertThat(b.auth("bob", "s3cret-b")).isEqualTo("OK");
            a.set("secret-plan", "alice's");
            a.mset("a1", "1", "a2", "2");
            b.set("secret-plan", "bob's");
            assertThat(a.get("secret-plan")).isEqualTo("alice's");
            assertThat(b.get("secret-plan")).isEqualTo("bob's");
            assertThat(b.get("a1")).isNull();
            assertThat(b.info("sluice"))
                    .as("INFO shows a tenant its own partition only")
                    .contains("partition_beta:")
                    .doesNotContain("partition_alpha");
            assertThat(b.exists("a1", "a2")).isZero();
            assertThat(b.mget("a1", "a2")).containsExactly(null, null);
            assertThat(b.del("a1")).isZero();
            Set<String> bobSees =
                    new HashSet<>(b.scan("0", new ScanParams().count(1000)).getResult());
            assertThat(bobSees).contains("secret-plan").doesNotContain("a1", "a2");
            assertThat(a.get("a1")).isEqualTo("1"); // bob's DEL did not touch alice's key
            assertThat(server.node().partition("alpha").get("secret-plan".getBytes(UTF_8)))
                    .isEqualTo("alice's".getBytes(UTF_8));
            assertThat(server.node().partition("beta").get("secret-plan".getBytes(UTF_8)))
                    .isEqualTo("bob's".getBytes(UTF_8));
            // a cursor issued to alice is not valid after the connection switches tenant
            String cursor = a.scan("0", new ScanParams().count(1)).getCursor();
            assertThat(a.auth("bob", "s3cret-b")).isEqualTo("OK");
            assertThatThrownBy(() -> a.scan(cursor)).hasMessageStartingWith("ERR invalid cursor");
            assertThat(a.get("secret-plan")).isEqualTo("bob's");
        }
    }

    /**
     * INFO's clients and stats sections count the tenant's own partition: they showed the node's counts, so a tenant
     * saw another's commands, rate and refusals (a tenant-isolation probe, 2026-11-28).
     */
    @Test
    void infoCountsOnlyTheTenantsOwnPartition() {
        try (Jedis a = TestServers.jedis(server);
                Jedis b = TestServers.jedis(server);
                Jedis b2 = TestServers.jedis(server)) {
            assertThat(a.auth("alice", "s3cret-a")).isEqualTo("OK");
            assertThat(b.auth("bob", "s3cret-b")).isEqualTo("OK");
            assertThat(b2.auth("bob", "s3cret-b")).isEqualTo("OK");
            long aliceBefore = field(a.info("stats"), "total_commands_processed");
            for (int i = 0; i < 500; i++) {
                b.set("k" + i, "v");
            }
            long aliceAfter = field(a.info("stats"), "total_commands_processed");
            assertThat(aliceAfter - aliceBefore)
                    .as("alice's count moved by her own INFO only, not by bob's 500 SETs")
                    .isEqualTo(1);
            assertThat(field(b.info("stats"), "total_commands_processed")).isGreaterThanOrEqualTo(500);
            // other tests' connections to this server may take a moment to be seen closed
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        assertThat(field(a.info("clients"), "connected_clients"))
                                .isEqualTo(1);
                        assertThat(field(b.info("clients"), "connected_clients"))
                                .isEqualTo(2);
                    });
        }
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError(name + " not in " + info);
    }

    @Test
    void helloCanAuthenticate() {
        try (Jedis j = new Jedis(
                new redis.clients.jedis.HostAndPort("127.0.0.1", server.port()),
                redis.clients.jedis.DefaultJedisClientConfig.builder()
                        .protocol(redis.clients.jedis.RedisProtocol.RESP2)
                        .user("bob")
                        .password("s3cret-b")
                        .build())) {
            j.set("via-hello", "x");
            assertThat(server.node().partition("beta").get("via-hello".getBytes(UTF_8)))
                    .isEqualTo("x".getBytes(UTF_8));
        }
    }

    @Test
    void secretsAreNotInToStringOrInfo() {
        assertThat(server.config().toString()).doesNotContain("s3cret");
        try (Jedis a = TestServers.jedis(server)) {
            a.auth("alice", "s3cret-a");
            assertThat(a.info()).doesNotContain("s3cret").contains("connection_partition:alpha");
        }
    }

    /**
     * Before AUTH, Redis' pre-authentication limits: a request of more than 10 elements or a bulk string over 16 KiB is
     * a protocol error, so a client that has not authenticated cannot make the server buffer megabytes. An AUTH
     * pipelined in the same packet as a large request lifts them for it.
     */
    @Test
    void unauthenticatedRequestsGetRedisSmallLimitsUntilAuth() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send("*11\r\n");
            assertThat(c.line()).isEqualTo("-ERR Protocol error: unauthenticated multibulk length");
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawClient c = new RawClient(server.port())) {
            c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16385\r\n");
            assertThat(c.line()).isEqualTo("-ERR Protocol error: unauthenticated bulk length");
            assertThat(c.closedByServer()).isTrue();
        }
        String big = "v".repeat(20_000);
        String args = RawClient.command("SET", "big", big);
        try (RawClient c = new RawClient(server.port())) {
            c.send(RawClient.command("AUTH", "alice", "s3cret-a")
                    + args
                    + RawClient.command("MSET", "m1", "1", "m2", "2", "m3", "3", "m4", "4", "m5", "5", "m6", "6"));
            assertThat(c.line()).isEqualTo("+OK");
            assertThat(c.line()).isEqualTo("+OK");
            assertThat(c.line()).isEqualTo("+OK");
        }
        assertThat(server.node().partition("alpha").get("big".getBytes(UTF_8))).isEqualTo(big.getBytes(UTF_8));
        assertThat(server.node().partition("alpha").get("m6".getBytes(UTF_8))).isEqualTo("6".getBytes(UTF_8));
    }
}
