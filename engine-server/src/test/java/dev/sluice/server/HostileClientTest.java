package dev.sluice.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.SluiceException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Clients that misbehave on purpose (found by a hostile-client review of the server, 2026-11-26): one that pipelines
 * large replies and never reads them, an HTTP request sent to the RESP port, more connections than allowed, a request
 * that arrives in thousands of pieces, and a port already in use at start.
 */
class HostileClientTest {
    @TempDir
    Path dir;

    private static final int VALUE_BYTES = 1 << 20;

    private static long usedDirectBytes() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT)
                .metric()
                .usedDirectMemory();
    }

    /** Reads one bulk reply and checks it holds {@code value}. */
    private static void readBulk(DataInputStream in, byte[] value, int i) throws IOException {
        String header = "$" + value.length + "\r\n";
        byte[] h = new byte[header.length()];
        in.readFully(h);
        assertThat(new String(h, US_ASCII)).as("reply %d", i).isEqualTo(header);
        byte[] got = new byte[value.length + 2];
        in.readFully(got);
        assertThat(Arrays.equals(got, 0, value.length, value, 0, value.length))
                .as("reply %d", i)
                .isTrue();
        assertThat(new String(got, value.length, 2, US_ASCII)).isEqualTo("\r\n");
    }

    @Test
    void aClientThatPipelinesLargeRepliesAndDoesNotReadIsHeldBackAndThenGetsEveryReplyInOrder() throws Exception {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'v');
        int gets = 100; // 100 MiB of replies
        try (SluiceServer s = TestServers.start(dir)) {
            try (Jedis j = TestServers.jedis(s)) {
                assertThat(j.set("big".getBytes(US_ASCII), value)).isEqualTo("OK");
            }
            assertThat(ByteBufAllocator.DEFAULT).isInstanceOf(ByteBufAllocatorMetricProvider.class);
            long before = usedDirectBytes();
            try (Socket hog = new Socket()) {
                hog.setReceiveBufferSize(4096);
                hog.connect(new InetSocketAddress("127.0.0.1", s.port()));
                hog.setSoTimeout(30_000);
                hog.getOutputStream()
                        .write(RawClient.command("GET", "big").repeat(gets).getBytes(US_ASCII));
                hog.getOutputStream().flush();
                Thread.sleep(2_000); // the server has read the requests; the client reads nothing
                long held = usedDirectBytes() - before;
                assertThat(held)
                        .as("direct memory held for a client that does not read (all its replies: %d MiB)", gets)
                        .isLessThan(32L << 20);
                try (Jedis other = TestServers.jedis(s)) {
                    assertThat(other.ping())
                            .as("other clients are served meanwhile")
                            .isEqualTo("PONG");
                }
                DataInputStream in = new DataInputStream(new BufferedInputStream(hog.getInputStream(), 1 << 16));
                for (int i = 0; i < gets; i++) {
                    readBulk(in, value, i);
                }
                hog.getOutputStream().write(RawClient.command("PING").getBytes(US_ASCII));
                hog.getOutputStream().flush();
                byte[] pong = new byte[7];
                in.readFully(pong);
                assertThat(new String(pong, US_ASCII)).isEqualTo("+PONG\r\n");
            }
        }
    }

    /**
     * A pipeline of large GETs runs only as far as the connection's reply budget allows: until 2026-11-28 all of them
     * ran at once and their replies waited on the heap (a probe: 1,500 GETs of a 16-MB value filled a 6-GB heap, and
     * other clients' requests failed with OutOfMemoryError). Every reply still arrives, in order, and requests that
     * depend on one another keep their order while they wait.
     */
    @Test
    void aPipelineOfLargeGetsHoldsNoMoreThanTheReplyBudgetAndKeepsItsOrder() throws Exception {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'v');
        int gets = 60; // 60 MiB of replies
        long budget = 4L << 20;
        try (SluiceServer s = TestServers.start(
                dir,
                "server.max.reply.bytes.per.connection",
                Long.toString(budget),
                "limits.max.value.bytes",
                Integer.toString(VALUE_BYTES))) { // a GET's worst case: 1 MiB, so three run at once
            try (Jedis j = TestServers.jedis(s)) {
                assertThat(j.set("big".getBytes(US_ASCII), value)).isEqualTo("OK");
            }
            try (Socket hog = new Socket()) {
                hog.setReceiveBufferSize(4096);
                hog.connect(new InetSocketAddress("127.0.0.1", s.port()));
                hog.setSoTimeout(30_000);
                StringBuilder pipeline = new StringBuilder();
                for (int i = 0; i < gets; i++) {
                    pipeline.append(RawClient.command("GET", "big"))
                            .append(RawClient.command("SET", "n", Integer.toString(i)))
                            .append(RawClient.command("GET", "n"));
                }
                hog.getOutputStream().write(pipeline.toString().getBytes(US_ASCII));
                hog.getOutputStream().flush();
                Thread.sleep(2_000); // the server has read what it will; the client reads nothing
                assertThat(s.peakReplyBytes())
                        .as("reply bytes held for a client that does not read (all its replies: %d MiB)", gets)
                        .isLessThanOrEqualTo(budget + 1024);
                try (Jedis other = TestServers.jedis(s)) {
                    assertThat(other.ping()).isEqualTo("PONG");
                }
                DataInputStream in = new DataInputStream(new BufferedInputStream(hog.getInputStream(), 1 << 16));
                for (int i = 0; i < gets; i++) {
                    readBulk(in, value, i);
                    String n = Integer.toString(i);
                    String expected = "+OK\r\n$" + n.length() + "\r\n" + n + "\r\n";
                    byte[] rest = new byte[expected.length()];
                    in.readFully(rest);
                    assertThat(new String(rest, US_ASCII))
                            .as("SET then GET n, round %d", i)
                            .isEqualTo(expected);
                }
            }
            assertThat(s.peakReplyBytes()).isLessThanOrEqualTo(budget + 1024);
        }
    }

    /**
     * Requests that complete at once (PING) waiting behind a large GET all run, in order, when it is written; 20,000 of
     * them (each used to start the next from inside its own completion, one call chain deeper per request: a
     * StackOverflowError lost a request and its reserved bytes; review, 2026-11-28).
     */
    @Test
    void manyQuickRequestsWaitingBehindALargeReplyAllRunInOrder() throws Exception {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'w');
        try (SluiceServer s = TestServers.start(
                dir,
                "server.max.reply.bytes.per.connection",
                Integer.toString(VALUE_BYTES),
                "limits.max.value.bytes",
                Integer.toString(VALUE_BYTES),
                "server.max.pending.per.connection",
                "50000")) {
            try (Jedis j = TestServers.jedis(s)) {
                assertThat(j.set("big".getBytes(US_ASCII), value)).isEqualTo("OK");
            }
            try (Socket c = new Socket("127.0.0.1", s.port())) {
                c.setSoTimeout(30_000);
                int pings = 20_000;
                String pipeline = RawClient.command("GET", "big")
                        + RawClient.command("PING").repeat(pings)
                        + RawClient.command("GET", "big");
                c.getOutputStream().write(pipeline.getBytes(US_ASCII));
                c.getOutputStream().flush();
                DataInputStream in = new DataInputStream(new BufferedInputStream(c.getInputStream(), 1 << 16));
                readBulk(in, value, 0);
                byte[] pong = new byte[7];
                for (int i = 0; i < pings; i++) {
                    in.readFully(pong);
                    assertThat(new String(pong, US_ASCII)).as("PING %d", i).isEqualTo("+PONG\r\n");
                }
                readBulk(in, value, 1);
            }
        }
    }

    @Test
    void anHttpRequestSentToTheRespPortIsClosedBeforeItsBodyRuns() throws Exception {
        try (SluiceServer s = TestServers.start(dir);
                RawClient c = new RawClient(s.port())) {
            c.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 30\r\n\r\nSET pwned 1\r\nSET pwned2 1\r\n");
            assertThat(c.closedByServer()).isTrue();
            try (Jedis j = TestServers.jedis(s)) {
                assertThat(j.get("pwned")).isNull();
                assertThat(j.get("pwned2")).isNull();
            }
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsGetTheRedisErrorAndAreClosed() throws Exception {
        try (SluiceServer s = TestServers.start(dir, "server.max.connections", "2");
                RawClient a = new RawClient(s.port());
                RawClient b = new RawClient(s.port())) {
            assertThat(a.send(RawClient.command("PING")).line()).isEqualTo("+PONG");
            assertThat(b.send(RawClient.command("PING")).line()).isEqualTo("+PONG");
            try (RawClient third = new RawClient(s.port())) {
                assertThat(third.line()).isEqualTo("-ERR max number of clients reached");
                assertThat(third.closedByServer()).isTrue();
            }
            a.close();
            // once a slot is free a new client is served
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        try (RawClient again = new RawClient(s.port())) {
                            assertThat(again.send(RawClient.command("PING")).line())
                                    .isEqualTo("+PONG");
                        }
                    });
        }
    }

    /**
     * Requests being received are bounded server-wide by server.max.request.bytes.total: a probe (2026-11-29) had 10
     * connections each half-way through a 64-MiB MSET hold a 512-MiB heap, and the 11th ran it out of memory.
     */
    @Test
    void unfinishedRequestsTogetherStayWithinTheServersBudget() throws Exception {
        try (SluiceServer s = TestServers.start(dir, "server.max.request.bytes.total", String.valueOf(1 << 20));
                RawClient first = new RawClient(s.port());
                RawClient second = new RawClient(s.port())) {
            String head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$800000\r\n";
            String part = "x".repeat(700_000);
            first.send(head + part);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> s.requestBytesHeld() >= 700_000);
            second.send(head + part);
            assertThat(second.line()).startsWith("-ERR the server's memory for requests being received is full");
            assertThat(second.closedByServer()).isTrue();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> s.requestBytesHeld() < 800_000);
            first.send("x".repeat(100_000) + "\r\n");
            assertThat(first.line()).isEqualTo("+OK");
            assertThat(first.send(RawClient.command("GET", "k")).line()).isEqualTo("$800000");
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> s.requestBytesHeld() == 0);
            try (RawClient third = new RawClient(s.port())) {
                assertThat(third.send(RawClient.command("PING")).line()).isEqualTo("+PONG");
            }
        }
    }

    /**
     * One tenant's unfinished requests cannot take the whole request budget: a tenant-isolation probe (2026-11-29) had
     * one tenant's connections each hold most of a 16-MB SET that never finished, and every other tenant's requests
     * above 64 KiB were refused while the noisy connections stayed. With a 4-MiB budget and two tenants each keeps a
     * 1-MiB floor; the noisy one gets its floor and the 2-MiB shared half (three 900-KB requests), the fourth is refused,
     * and the quiet tenant's 900-KB SET still goes through. On the old code the fourth noisy connection fitted and the
     * quiet tenant's request was refused.
     */
    @Test
    void oneTenantsUnfinishedRequestsLeaveTheOthersTheirFloor() throws Exception {
        try (SluiceServer s = TestServers.start(
                dir,
                "partitions",
                "noisy,quiet",
                "server.tenant.n.secret",
                "pn",
                "server.tenant.n.partition",
                "noisy",
                "server.tenant.q.secret",
                "pq",
                "server.tenant.q.partition",
                "quiet",
                "server.max.request.bytes.total",
                String.valueOf(4 << 20))) {
            String head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000000\r\n";
            String part = "x".repeat(900_000);
            java.util.List<RawClient> noisy = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    RawClient c = new RawClient(s.port());
                    noisy.add(c);
                    assertThat(c.send(RawClient.command("AUTH", "n", "pn")).line())
                            .isEqualTo("+OK");
                    c.send(head + part);
                    long expected = 900_000L * (i + 1);
                    org.awaitility.Awaitility.await()
                            .atMost(java.time.Duration.ofSeconds(10))
                            .until(() -> s.requestBytesHeld() >= expected);
                }
                try (RawClient fourth = new RawClient(s.port())) {
                    assertThat(fourth.send(RawClient.command("AUTH", "n", "pn")).line())
                            .isEqualTo("+OK");
                    fourth.send(head + part);
                    assertThat(fourth.line())
                            .startsWith("-ERR the server's memory for requests being received is full")
                            .contains("partition 'noisy' holds its floor");
                    assertThat(fourth.closedByServer()).isTrue();
                }
                try (RawClient quiet = new RawClient(s.port())) {
                    assertThat(quiet.send(RawClient.command("AUTH", "q", "pq")).line())
                            .isEqualTo("+OK");
                    quiet.send(head + part);
                    assertThat(quiet.send("x".repeat(100_000) + "\r\n").line()).isEqualTo("+OK");
                    assertThat(quiet.send(RawClient.command("GET", "k")).line()).isEqualTo("$1000000");
                }
                for (RawClient c : noisy) { // the noisy tenant's own requests finish too
                    assertThat(c.send("x".repeat(100_000) + "\r\n").line()).isEqualTo("+OK");
                }
            } finally {
                for (RawClient c : noisy) {
                    c.close();
                }
            }
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> s.requestBytesHeld() == 0);
        }
    }

    /**
     * SCAN cursors are bounded by server.scan.cursor.bytes per partition, whatever the connections do: each kept its own
     * 1,024 cursors, each with a copy of the last key (a probe, 2026-11-29, ran a 512-MiB server out of memory with ~60
     * connections pipelining {@code SCAN 0 COUNT 1 MATCH nomatch} over an 8-KiB key). And a cursor continues on another
     * connection, as pooled clients use it.
     */
    @Test
    void scanCursorsStayWithinTheirBudgetAndContinueOnAnyConnection() throws Exception {
        long budget = 256 << 10;
        try (SluiceServer s = TestServers.start(dir, "server.scan.cursor.bytes", String.valueOf(budget));
                Jedis j = TestServers.jedis(s)) {
            String big = "k".repeat(8192);
            j.set(big, "v");
            j.set("small", "v");
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 1024; i++) {
                pipeline.append(RawClient.command("SCAN", "0", "COUNT", "1", "MATCH", "nomatch"));
            }
            String scans = pipeline.toString();
            for (int c = 0; c < 8; c++) {
                try (RawClient raw = new RawClient(s.port())) {
                    raw.send(scans);
                    for (int i = 0; i < 1024; i++) {
                        assertThat(raw.line()).isEqualTo("*2");
                        raw.line(); // $n
                        assertThat(raw.line()).matches("[1-9][0-9]*");
                        assertThat(raw.line()).isEqualTo("*0");
                    }
                }
                assertThat(s.scanCursorBytes("default")).isLessThanOrEqualTo(budget);
            }
            // 8 x 1,024 cursors of an 8-KiB key would be 64 MiB
            assertThat(s.scanCursorBytes("default")).isGreaterThan(budget / 2);
            try (Jedis other = TestServers.jedis(s)) {
                redis.clients.jedis.resps.ScanResult<String> first =
                        j.scan("0", new redis.clients.jedis.params.ScanParams().count(1));
                assertThat(first.getResult()).containsExactly(big);
                redis.clients.jedis.resps.ScanResult<String> rest = other.scan(first.getCursor());
                assertThat(rest.getResult()).containsExactly("small");
                assertThat(rest.getCursor()).isEqualTo("0");
                assertThat(j.scan(first.getCursor()).getResult())
                        .as("resumed again")
                        .containsExactly("small");
            }
        }
    }

    /**
     * The cap is counted in accept order: the first connections get the slots and the rest are refused, however many
     * event loops initialize them. The check used to run on each connection's own loop, so two sockets accepted together
     * could be served in either order, or both: {@link #idleSocketsThatNeverAuthenticateAreClosedAndTheTenantGetsIn}
     * met it in CI and in 2 of 3 local runs (the second of three sockets refused, the third served). This test did not
     * fail on that code in 3 runs; it pins the rule with more sockets and loops.
     */
    @Test
    void theFirstConnectionsGetTheSlotsAndNoMore() throws Exception {
        int cap = 4;
        int opened = 16;
        try (SluiceServer s =
                TestServers.start(dir, "server.max.connections", String.valueOf(cap), "server.io.threads", "4")) {
            java.util.List<RawClient> clients = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < opened; i++) {
                    clients.add(new RawClient(s.port()));
                }
                // a refused socket gets its error line at once; a served one gets nothing until it sends
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(20))
                        .until(() -> {
                            int answered = 0;
                            for (RawClient c : clients) {
                                answered += c.in.available() > 0 ? 1 : 0;
                            }
                            return answered >= opened - cap;
                        });
                Thread.sleep(200); // nothing else arrives: the served sockets stay silent
                for (int i = 0; i < opened; i++) {
                    RawClient c = clients.get(i);
                    if (i < cap) {
                        assertThat(c.in.available()).as("socket %d", i).isZero();
                        assertThat(c.send(RawClient.command("PING")).line())
                                .as("socket %d", i)
                                .isEqualTo("+PONG");
                    } else {
                        assertThat(c.line()).as("socket %d", i).isEqualTo("-ERR max number of clients reached");
                    }
                }
            } finally {
                for (RawClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /**
     * Sockets that never authenticate are closed after server.auth.timeout.ms, so they cannot hold the connection cap
     * against the tenants (a probe, 2026-11-28: 50 idle sockets locked every tenant out of a 50-connection server for
     * as long as they stayed open). An authenticated connection is not touched by the deadline.
     */
    @Test
    void idleSocketsThatNeverAuthenticateAreClosedAndTheTenantGetsIn() throws Exception {
        try (SluiceServer s = TestServers.start(
                        dir,
                        "server.max.connections",
                        "2",
                        "server.auth.timeout.ms",
                        "3000",
                        "server.tenant.alice.secret",
                        "a-secret",
                        "server.tenant.alice.partition",
                        "default");
                RawClient authed = new RawClient(s.port())) {
            // the idle socket connects only once the first AUTH is done: that first AUTH (class loading on a loaded CI
            // machine) once took more than the deadline, the idle socket was closed already and the third got in
            assertThat(authed.send(RawClient.command("AUTH", "alice", "a-secret"))
                            .line())
                    .isEqualTo("+OK");
            RawClient idle = new RawClient(s.port());
            long idleSince = System.nanoTime();
            try (RawClient third = new RawClient(s.port())) {
                org.junit.jupiter.api.Assumptions.assumeTrue(
                        System.nanoTime() - idleSince < 2_500_000_000L,
                        "the machine took longer than the deadline to open the third socket");
                assertThat(third.line()).isEqualTo("-ERR max number of clients reached");
            }
            assertThat(idle.line()).isEqualTo("-ERR not authenticated within server.auth.timeout.ms; closing");
            assertThat(idle.closedByServer()).isTrue();
            idle.close();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        try (RawClient tenant = new RawClient(s.port())) {
                            assertThat(tenant.send(RawClient.command("AUTH", "alice", "a-secret"))
                                            .line())
                                    .isEqualTo("+OK");
                        }
                    });
            Thread.sleep(3_200); // past the deadline: the authenticated connection still works
            assertThat(authed.send(RawClient.command("PING")).line()).isEqualTo("+PONG");
        }
    }

    /**
     * The deadline closes a connection that never reads: it sends PINGs before AUTH and reads none of the replies, so the
     * deadline's error line cannot be written; the connection was closed only once that line was written, i.e. never
     * (review of the deadline, 2026-11-28).
     */
    @Test
    void theAuthDeadlineClosesAClientThatStoppedReading() throws Exception {
        try (SluiceServer s = TestServers.start(
                        dir,
                        "server.auth.timeout.ms",
                        "1000",
                        "server.tenant.alice.secret",
                        "a-secret",
                        "server.tenant.alice.partition",
                        "default");
                Socket hog = new Socket()) {
            hog.setReceiveBufferSize(4096);
            hog.connect(new InetSocketAddress("127.0.0.1", s.port()));
            byte[] pings = "PING\r\n".repeat(10_000).getBytes(US_ASCII);
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        hog.getOutputStream().write(pings);
                    }
                } catch (IOException e) {
                    // closed by the server: expected
                }
            });
            writer.setDaemon(true);
            writer.start();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> s.openConnections() == 0);
            writer.join(20_000);
            assertThat(writer.isAlive())
                    .as("its writes fail once the server closed it")
                    .isFalse();
        }
    }

    @Test
    void anArrayArrivingInThousandsOfPiecesIsDecodedOnceNotFromItsHeaderEachTime() {
        int n = 1_000_000;
        StringBuilder sb = new StringBuilder("*").append(n).append("\r\n");
        for (int i = 0; i < n; i++) {
            sb.append("$1\r\nx\r\n");
        }
        byte[] frame = sb.toString().getBytes(US_ASCII);
        EmbeddedChannel ch =
                new EmbeddedChannel(new RespDecoder(2_000_000, 1 << 20, 1 << 16, Long.MAX_VALUE, () -> false));
        long t0 = System.nanoTime();
        for (int off = 0; off < frame.length; off += 4096) {
            ch.writeInbound(Unpooled.wrappedBuffer(frame, off, Math.min(4096, frame.length - off)));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        byte[][] args = ch.readInbound();
        assertThat(args.length).isEqualTo(n);
        assertThat(args[n - 1]).containsExactly('x');
        assertThat((Object) ch.readInbound()).isNull();
        // Decoding from the header at every piece took ~31 s for this frame (1,709 pieces); once, well under a second.
        // The bound is loose on purpose: it tells linear from quadratic, not fast from slow.
        assertThat(seconds).as("decode time of a 7-MB frame in 4-KiB pieces").isLessThan(8);
        ch.finishAndReleaseAll();
    }

    @Test
    void aPortInUseFailsTheStartBeforeAnyStoreIsCreated() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> TestServers.start(dir, "server.port", String.valueOf(port)))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageContaining("server.host/server.port");
            assertThat(Files.exists(dir.resolve("data"))).as("no store created").isFalse();
        }
        assertThatThrownBy(() -> TestServers.start(dir, "server.host", "no.such.host.invalid"))
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("no.such.host.invalid")
                .hasMessageContaining("does not resolve");
        assertThat(Files.exists(dir.resolve("data"))).isFalse();
    }
}
