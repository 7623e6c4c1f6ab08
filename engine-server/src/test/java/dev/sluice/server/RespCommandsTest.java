package dev.sluice.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/** Every command and every error, through Jedis, against a real server (no AUTH configured). */
class RespCommandsTest {
    @TempDir
    static Path dir;

    static SluiceServer server;

    @BeforeAll
    static void start() {
        server = TestServers.start(dir, "limits.max.value.bytes", "1024");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void setGetDelExists() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.set("k1", "v1")).isEqualTo("OK");
            assertThat(j.get("k1")).isEqualTo("v1");
            assertThat(j.get("absent")).isNull();
            assertThat(j.exists("k1")).isTrue();
            assertThat(j.exists("k1", "k1", "absent")).isEqualTo(2);
            j.set("k2", "v2");
            assertThat(j.del("k1", "k2", "absent", "k1")).isEqualTo(2);
            assertThat(j.get("k1")).isNull();
            assertThat(j.del("k1")).isZero();
            // stored in the node's default partition, readable through the library
            j.set("shared", "yes");
            assertThat(server.node().defaultPartition().get("shared".getBytes(UTF_8)))
                    .isEqualTo("yes".getBytes(UTF_8));
        }
    }

    @Test
    void binarySafeValues() {
        try (Jedis j = TestServers.jedis(server)) {
            byte[] key = {0, 1, '\r', '\n', (byte) 0xff};
            byte[] value = {'\r', '\n', 0, '$', '*', (byte) 0x80};
            j.set(key, value);
            assertThat(j.get(key)).isEqualTo(value);
            assertThat(j.set("empty".getBytes(UTF_8), new byte[0])).isEqualTo("OK");
            assertThat(j.get("empty".getBytes(UTF_8))).isEmpty();
            // the empty key, which Redis accepts (the engine refused it until 2026-11-27: "-ERR key must not be empty")
            byte[] none = new byte[0];
            assertThat(j.set(none, "e".getBytes(UTF_8))).isEqualTo("OK");
            assertThat(j.get(none)).isEqualTo("e".getBytes(UTF_8));
            assertThat(j.exists(none)).isTrue();
            assertThat(j.del(none)).isEqualTo(1);
            assertThat(j.get(none)).isNull();
        }
    }

    @Test
    void msetMget() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.mset("m1", "a", "m2", "b", "m3", "c")).isEqualTo("OK");
            assertThat(j.mget("m1", "nope", "m3", "m2")).containsExactly("a", null, "c", "b");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.MSET, "a", "1", "b"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'mset' command");
        }
    }

    @Test
    void scanWalksThePartitionWithCursorsMatchAndCount() {
        try (Jedis j = TestServers.jedis(server)) {
            for (int i = 0; i < 57; i++) {
                j.set(String.format("scan:%03d", i), "x");
            }
            j.set("other:1", "x");
            Set<String> seen = new HashSet<>();
            List<String> cursors = new ArrayList<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> r =
                        j.scan(cursor, new ScanParams().match("scan:*").count(10));
                seen.addAll(r.getResult());
                cursor = r.getCursor();
                cursors.add(cursor);
            } while (!cursor.equals("0"));
            assertThat(seen).hasSize(57).allMatch(k -> k.startsWith("scan:"));
            assertThat(cursors.size()).isGreaterThan(5); // COUNT 10 over 60+ keys: several calls
            assertThat(cursors.subList(0, cursors.size() - 1)).allMatch(c -> c.matches("[1-9][0-9]*"));
            assertThat(j.scan("0", new ScanParams().match("scan:00[0-4]").count(1000))
                            .getResult())
                    .containsExactly("scan:000", "scan:001", "scan:002", "scan:003", "scan:004");
            assertThatThrownBy(() -> j.scan("12345678"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR invalid cursor 12345678");
            assertThatThrownBy(() -> j.scan("abc"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR invalid cursor");
            assertThatThrownBy(() -> j.scan("0", new ScanParams().count(0)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("COUNT 0 is out of range");
        }
    }

    @Test
    void pingEchoInfoClientCommandSelect() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.ping()).isEqualTo("PONG");
            assertThat(j.ping("hello")).isEqualTo("hello");
            assertThat(j.echo("abc")).isEqualTo("abc");
            String info = j.info();
            assertThat(info)
                    .contains("# Server", "redis_version:", "# Sluice", "partition_default:memtable_watermark=");
            assertThat(j.info("stats")).contains("total_commands_processed:").doesNotContain("# Server");
            String two = new String((byte[]) j.sendCommand(Protocol.Command.INFO, "server", "STATS"), UTF_8);
            assertThat(two).contains("# Server", "# Stats").doesNotContain("# Sluice", "# Clients");
            assertThat(j.clientSetname("worker-1")).isEqualTo("OK");
            assertThat(j.clientGetname()).isEqualTo("worker-1");
            assertThatThrownBy(() -> j.clientSetname("has space"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("cannot contain spaces");
            Object commands = j.sendCommand(Protocol.Command.COMMAND);
            assertThat(commands).asList().hasSizeGreaterThanOrEqualTo(14);
            assertThat(j.sendCommand(Protocol.Command.COMMAND, "COUNT")).isEqualTo((long) ((List<?>) commands).size());
            assertThat(j.select(0)).isEqualTo("OK");
            assertThatThrownBy(() -> j.select(3))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR SELECT is not supported");
        }
    }

    @Test
    void errorsAsRedisClientsExpect() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThatThrownBy(() -> j.sendCommand(() -> "FLUSHALL".getBytes(UTF_8)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR unknown command 'FLUSHALL', with args beginning with: ");
            assertThatThrownBy(() -> j.sendCommand(() -> "HSET".getBytes(UTF_8), "h", "f", "v"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR unknown command 'HSET', with args beginning with: 'h' 'f' 'v' ");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.GET))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'get' command");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.GET, "a", "b"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'get' command");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.SET, "a"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'set' command");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.DEL))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'del' command");
            assertThatThrownBy(() -> j.set("ttl", "v", SetParams.setParams().ex(10)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR SET EX is not supported: Sluice keys do not expire");
            assertThatThrownBy(() -> j.set("ttl", "v", SetParams.setParams().px(10)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR SET PX is not supported: Sluice keys do not expire");
            assertThatThrownBy(() -> j.set("ttl", "v", SetParams.setParams().nx()))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR SET NX is not supported");
            assertThat(j.get("ttl")).isNull(); // a refused SET wrote nothing
            // the partition's own limits come back as -ERR naming the limit, and nothing is written
            assertThatThrownBy(() -> j.set("big", "x".repeat(2000)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR ")
                    .hasMessageContaining("1024");
            assertThat(j.get("big")).isNull();
            assertThatThrownBy(() -> j.auth("t", "s"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR AUTH called without any tenant configured");
            assertThat(j.auth("default", "anything"))
                    .as("Redis' passwordless default user")
                    .isEqualTo("OK");
            assertThatThrownBy(() -> j.auth("secret"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR AUTH called without any tenant configured");
            assertThat(j.configGet("appendonly")).containsEntry("appendonly", "yes");
            assertThat(j.configGet("maxmemory")).isEmpty();
            assertThatThrownBy(() -> j.configSet("save", ""))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR CONFIG SET is not supported");
            // the connection still works after every error
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void pipelinedRepliesComeInRequestOrder() {
        try (Jedis j = TestServers.jedis(server)) {
            Pipeline p = j.pipelined();
            List<Response<String>> sets = new ArrayList<>();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                sets.add(p.set("p" + i, "v" + i));
                gets.add(p.get("p" + i));
                if (i % 100 == 0) {
                    p.sendCommand(
                            Protocol.Command.PING,
                            new String[0]); // answered at once, while the writes before it run on the async pool
                }
            }
            p.sync();
            for (int i = 0; i < 2000; i++) {
                assertThat(sets.get(i).get()).isEqualTo("OK");
                assertThat(gets.get(i).get()).isEqualTo("v" + i);
            }
        }
    }

    @Test
    void helloNegotiatesResp2AndRefusesResp3() {
        try (Jedis j = TestServers.jedisHello(server)) {
            assertThat(j.set("h", "1")).isEqualTo("OK");
            assertThat(j.get("h")).isEqualTo("1");
            assertThatThrownBy(() -> j.sendCommand(() -> "HELLO".getBytes(UTF_8), "3"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("NOPROTO this server speaks RESP2 only");
        }
    }

    /** Redis compares command names in ASCII: Unicode case folding must not turn ſet into SET (a server probe). */
    @Test
    void commandNamesAreCaseInsensitiveInAsciiOnly() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.sendCommand(() -> "pInG".getBytes(UTF_8))).isEqualTo("PONG".getBytes(UTF_8));
            assertThatThrownBy(() -> j.sendCommand(() -> "\u017Fet".getBytes(UTF_8), "uk", "1"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR unknown command");
            assertThatThrownBy(() -> j.sendCommand(() -> "p\u0131ng".getBytes(UTF_8)))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR unknown command");
            assertThat(j.get("uk")).isNull();
        }
    }

    /** HELLO SETNAME checks the name as CLIENT SETNAME does; CLIENT GETNAME takes no argument (as in Redis). */
    @Test
    void clientNamesAreCheckedByHelloToo() {
        try (Jedis j = TestServers.jedis(server)) {
            assertThatThrownBy(() -> j.sendCommand(() -> "HELLO".getBytes(UTF_8), "2", "SETNAME", "bad name\r\nx"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("Client names cannot contain spaces");
            assertThat(j.sendCommand(Protocol.Command.CLIENT, "GETNAME")).isNull();
            j.sendCommand(() -> "HELLO".getBytes(UTF_8), "2", "SETNAME", "good-name");
            assertThat(j.sendCommand(Protocol.Command.CLIENT, "GETNAME")).isEqualTo("good-name".getBytes(UTF_8));
            // a name stays with its connection: a long one is refused (a probe, 2026-11-29: 16-MiB names)
            String longest = "n".repeat(Commands.MAX_CLIENT_NAME);
            assertThat(j.clientSetname(longest)).isEqualTo("OK");
            assertThatThrownBy(() -> j.clientSetname(longest + "n"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR client name longer than 1024 characters");
            assertThatThrownBy(() -> j.sendCommand(() -> "HELLO".getBytes(UTF_8), "2", "SETNAME", longest + "n"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR client name longer than 1024 characters");
            assertThat(j.clientGetname()).isEqualTo(longest);
            j.sendCommand(() -> "HELLO".getBytes(UTF_8), "2", "SETNAME", "good-name");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.CLIENT, "GETNAME", "extra"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR wrong number of arguments for 'client|getname' command");
        }
    }

    @Test
    void pipelinedRequestsOnTheSameKeyKeepTheirOrder() {
        try (Jedis j = TestServers.jedis(server)) {
            for (int round = 0; round < 20; round++) {
                Pipeline p = j.pipelined();
                Response<String> a = p.get("ord");
                p.set("ord", "1");
                p.set("ord", "2");
                p.mset("ord", "3", "other", "x");
                Response<String> b = p.get("ord");
                Response<Long> d = p.del("ord", "other");
                Response<Boolean> e = p.exists("ord");
                Response<ScanResult<String>> scan =
                        p.scan("0", new ScanParams().match("ord").count(100_000));
                p.set("ord", "4");
                Response<java.util.List<String>> m = p.mget("ord", "other");
                p.del("ord");
                p.sync();
                assertThat(a.get()).isNull();
                assertThat(b.get()).isEqualTo("3");
                assertThat(d.get()).isEqualTo(2);
                assertThat(e.get()).isFalse();
                assertThat(scan.get().getResult()).isEmpty();
                assertThat(m.get()).containsExactly("4", null);
            }
        }
    }

    @Test
    void quitClosesTheConnection() {
        try (Jedis j = TestServers.jedis(server)) {
            j.set("q", "1");
            assertThat(new String((byte[]) j.sendCommand(() -> "QUIT".getBytes(UTF_8)), UTF_8))
                    .isEqualTo("OK");
            assertThatThrownBy(j::ping).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
        }
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.get("q")).isEqualTo("1");
        }
    }
}
