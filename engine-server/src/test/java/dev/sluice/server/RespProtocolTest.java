package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Frames no client library sends: malformed and oversized frames get {@code -ERR Protocol error: ...} and close only
 * that connection; inline commands; pipelines split at arbitrary byte boundaries.
 */
class RespProtocolTest {
    @TempDir
    static Path dir;

    static SluiceServer server;

    @BeforeAll
    static void start() {
        server = TestServers.start(
                dir, "server.max.bulk.bytes", "4096", "server.max.array.length", "8", "server.max.inline.bytes", "256");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void oversizedBulkIsRefusedFromItsHeaderAndClosesOnlyThatConnection() throws Exception {
        try (Jedis other = TestServers.jedis(server);
                RawClient c = new RawClient(server.port())) {
            other.set("survivor", "1");
            // only the header: the server must not wait for (or buffer) the 100 MB body
            c.send(RawClient.command("SET", "k", "v")).send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000000\r\n");
            assertThat(c.line()).isEqualTo("+OK"); // the request before the bad frame is still answered
            assertThat(c.line())
                    .isEqualTo("-ERR Protocol error: bulk string of 100000000 bytes exceeds server.max.bulk.bytes"
                            + " (4096)");
            assertThat(c.closedByServer()).isTrue();
            assertThat(other.get("survivor")).isEqualTo("1");
            assertThat(other.get("k")).isEqualTo("v");
        }
    }

    @Test
    void oversizedArrayIsRefused() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send("*1000000\r\n");
            assertThat(c.line())
                    .isEqualTo("-ERR Protocol error: array of 1000000 elements exceeds server.max.array.length (8)");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void malformedFramesGetProtocolErrors() throws Exception {
        String[][] cases = {
            {"*2\r\n$3\r\nGET\r\n:5\r\n", "-ERR Protocol error: expected '$', got ':'"},
            {"*x\r\n", "-ERR Protocol error: invalid multibulk length 'x'"},
            {"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length -5"},
            {"*1\r\n$4\r\nPINGxx", "-ERR Protocol error: bulk string not terminated by CRLF"},
            {"*1\r\n$" + "9".repeat(40), "-ERR Protocol error: invalid bulk length (no CRLF within 32 bytes)"},
            {"x".repeat(300), "-ERR Protocol error: inline request longer than server.max.inline.bytes (256)"},
        };
        for (String[] k : cases) {
            try (RawClient c = new RawClient(server.port())) {
                c.send(k[0]);
                assertThat(c.line()).as(k[0]).isEqualTo(k[1]);
                assertThat(c.closedByServer()).as(k[0]).isTrue();
            }
        }
        try (Jedis j = TestServers.jedis(server)) {
            assertThat(j.ping()).isEqualTo("PONG"); // the server is fine
        }
    }

    @Test
    void inlineCommandsAndEmptyLines() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send("PING\r\n\r\nSET inl ine\r\nGET inl\nECHO   hi  \r\n");
            assertThat(c.line()).isEqualTo("+PONG");
            assertThat(c.line()).isEqualTo("+OK");
            assertThat(c.line()).isEqualTo("$3");
            assertThat(c.line()).isEqualTo("ine");
            assertThat(c.line()).isEqualTo("$2");
            assertThat(c.line()).isEqualTo("hi");
            // Redis' quoting (sdssplitargs): a quoted value with a blank and an escape is one argument
            c.send("SET \"q k\" 'it\\'s \"x\"'\r\nGET \"q k\"\r\n");
            assertThat(c.line()).isEqualTo("+OK");
            assertThat(c.line()).isEqualTo("$8");
            assertThat(c.line()).isEqualTo("it's \"x\"");
            c.send("SET k \"unterminated\r\n");
            assertThat(c.line()).isEqualTo("-ERR Protocol error: unbalanced quotes in request");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void pipelineSplitAtEveryByteBoundaryIsDecodedWhole() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            sb.append(RawClient.command("SET", "s" + i, "value-" + i)).append(RawClient.command("GET", "s" + i));
        }
        byte[] all = sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (RawClient c = new RawClient(server.port())) {
            c.socket.setTcpNoDelay(true);
            for (byte b : all) {
                c.send(new byte[] {b});
            }
            for (int i = 0; i < 20; i++) {
                assertThat(c.line()).isEqualTo("+OK");
                assertThat(c.line()).isEqualTo("$" + ("value-" + i).length());
                assertThat(c.line()).isEqualTo("value-" + i);
            }
        }
    }

    @Test
    void backPressureWithATinyPendingLimitStillAnswersEveryRequestInOrder(@TempDir Path own) throws Exception {
        try (SluiceServer small = TestServers.start(own, "server.max.pending.per.connection", "2");
                RawClient c = new RawClient(small.port())) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 500; i++) {
                sb.append(RawClient.command("SET", "bp" + i, "v" + i)).append(RawClient.command("GET", "bp" + i));
            }
            c.send(sb.toString());
            for (int i = 0; i < 500; i++) {
                assertThat(c.line()).isEqualTo("+OK");
                assertThat(c.line()).isEqualTo("$" + ("v" + i).length());
                assertThat(c.line()).isEqualTo("v" + i);
            }
            // The bound holds: the requests one socket read brings in beyond it wait undecoded (until 2026-11-27 all of
            // them were started at once, hundreds here).
            assertThat(small.peakPendingPerConnection()).isBetween(1, 2);
        }
    }

    /** A whole pipeline sent at once, far over the pending limit, is answered completely: reading resumes by itself. */
    @Test
    void aPipelineSentWholeOverThePendingLimitIsAnsweredToTheEnd(@TempDir Path own) throws Exception {
        try (SluiceServer small = TestServers.start(own, "server.max.pending.per.connection", "3");
                RawClient c = new RawClient(small.port())) {
            c.send("PING\r\n".repeat(5000));
            for (int i = 0; i < 5000; i++) {
                assertThat(c.line()).as("reply %d", i).isEqualTo("+PONG");
            }
            assertThat(small.peakPendingPerConnection()).isBetween(1, 3);
        }
    }

    @Test
    void unknownCommandAndWrongArityKeepTheConnection() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(RawClient.command("NOPE", "a") + RawClient.command("GET") + RawClient.command("PING"));
            assertThat(c.line()).isEqualTo("-ERR unknown command 'NOPE', with args beginning with: 'a' ");
            assertThat(c.line()).isEqualTo("-ERR wrong number of arguments for 'get' command");
            assertThat(c.line()).isEqualTo("+PONG");
        }
    }

    /**
     * Requests pipelined after QUIT do not run, as in Redis, even while a request before QUIT is still in flight (its
     * reply is still written, then QUIT's). Until 2026-11-27 the request after QUIT ran though its client never got a
     * reply.
     */
    @Test
    void nothingPipelinedAfterQuitRuns() throws Exception {
        for (int i = 0; i < 50; i++) {
            try (RawClient c = new RawClient(server.port())) {
                c.send(RawClient.command("SET", "qa" + i, "1")
                        + RawClient.command("QUIT")
                        + RawClient.command("SET", "qb" + i, "2"));
                assertThat(c.line()).isEqualTo("+OK");
                assertThat(c.line()).isEqualTo("+OK");
                assertThat(c.closedByServer()).isTrue();
            }
        }
        try (Jedis j = TestServers.jedis(server)) {
            for (int i = 0; i < 50; i++) {
                assertThat(j.get("qa" + i)).as("qa%d", i).isEqualTo("1");
                assertThat(j.exists("qb" + i)).as("qb%d", i).isFalse();
            }
        }
    }

    /** The bytes of one request's arguments together are bounded (server.max.request.bytes), from the headers. */
    @Test
    void aRequestOverMaxRequestBytesIsRefused(@TempDir Path own) throws Exception {
        try (SluiceServer small =
                        TestServers.start(own, "server.max.request.bytes", "2048", "server.max.bulk.bytes", "1024");
                RawClient c = new RawClient(small.port())) {
            String v = "x".repeat(1000);
            c.send(RawClient.command("MSET", "a", v) + RawClient.command("MSET", "a", v, "b", v, "c", v));
            assertThat(c.line()).isEqualTo("+OK");
            assertThat(c.line())
                    .isEqualTo("-ERR Protocol error: request of more than 2048 bytes exceeds server.max.request.bytes");
            assertThat(c.closedByServer()).isTrue();
            assertThat(small.node().defaultPartition().get("b".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .isNull();
        }
    }
}
