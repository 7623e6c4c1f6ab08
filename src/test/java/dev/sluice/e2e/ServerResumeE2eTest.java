package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import dev.sluice.server.ServerConfig;
import dev.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A Redis client can see a partition's background error and clear it once its cause is fixed: SLUICE HEALTH and
 * SLUICE RESUME, with a real server, the priority Env's injected WAL fault and Jedis. A fault probe (2026-11-29) found
 * that after a non-retryable WAL error every SET kept failing with "call Partition.resume()", which no Redis client
 * could reach; only a restart recovered the partition.
 */
class ServerResumeE2eTest {
    @TempDir
    Path dir;

    /** A server's properties: one partition {@code name} on the priority Env, with the test-hooks controller. */
    private Properties hooked(String name) {
        Properties p = new Properties();
        p.setProperty("data.dir", dir.resolve("data").toString());
        p.setProperty("server.port", "0");
        p.setProperty("server.http.port", "0");
        p.setProperty("partitions", name);
        p.setProperty("env", "priority");
        p.setProperty("controls", "test-hooks");
        return p;
    }

    @Test
    void aTenantSeesItsPartitionsErrorAndResumesItOnceTheCauseIsGone() {
        String name = "server-resume";
        try (SluiceServer server = SluiceServer.start(ServerConfig.fromProperties(hooked(name), dir));
                Jedis j = new Jedis(
                        new HostAndPort("127.0.0.1", server.port()),
                        DefaultJedisClientConfig.builder().timeoutMillis(30_000).build())) {
            for (int i = 0; i < 100; i++) {
                assertThat(j.set("k" + i, "v" + i)).isEqualTo("OK");
            }
            assertThat(j.sendCommand(() -> "SLUICE".getBytes(), "HEALTH")).isEqualTo("ok".getBytes());
            PriorityEnv env = NodeHooks.ENVS.get(name);
            int rule = env.faults()
                    .inject(FaultRule.eio(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.WAL)));
            assertThatThrownBy(() -> j.set("bad", "x")).isInstanceOf(JedisDataException.class);
            assertThatThrownBy(() -> j.set("after", "x"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("send SLUICE RESUME")
                    .hasMessageNotContaining("Partition.resume()")
                    .hasMessageNotContaining("Partition.health()");
            assertThat(new String((byte[]) j.sendCommand(() -> "SLUICE".getBytes(), "HEALTH")))
                    .contains("sluice fault injection")
                    .contains("writes stopped");
            assertThat(j.get("k7")).as("reads still work").isEqualTo("v7");
            assertThat(env.faults().remove(rule)).isTrue();
            assertThat(j.sendCommand(() -> "SLUICE".getBytes(), "RESUME")).isEqualTo("OK".getBytes());
            assertThat(j.sendCommand(() -> "SLUICE".getBytes(), "HEALTH")).isEqualTo("ok".getBytes());
            assertThat(j.set("after", "y")).isEqualTo("OK");
            for (int i = 0; i < 100; i++) {
                assertThat(j.get("k" + i)).isEqualTo("v" + i);
            }
            assertThatThrownBy(() -> j.sendCommand(() -> "SLUICE".getBytes(), "REPAIR"))
                    .hasMessageContaining("unknown subcommand 'REPAIR' of SLUICE; known: HEALTH, RESUME");
        }
    }

    /**
     * A server closed while its partition's WAL writes hang (2 s each, injected) takes about its own
     * server.shutdown.timeout.ms plus the writes already inside RocksDB, not that plus the node's own 60 s for the
     * queued ones (a fault probe, 2026-11-29: 95 s against a 30-s bound under a slow WAL).
     */
    @Test
    void shutdownUnderAHangingWalStaysNearItsBound() throws Exception {
        String name = "server-slow-close";
        Properties p = hooked(name);
        p.setProperty("async.threads", "2");
        p.setProperty("server.shutdown.timeout.ms", "500");
        SluiceServer server = SluiceServer.start(ServerConfig.fromProperties(p, dir));
        java.util.List<java.net.Socket> clients = new java.util.ArrayList<>();
        try {
            NodeHooks.ENVS
                    .get(name)
                    .faults()
                    .inject(FaultRule.delay(
                                    Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE), java.time.Duration.ofSeconds(2))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.WAL)));
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                pipeline.append("*3\r\n$3\r\nSET\r\n$4\r\nk")
                        .append(String.format("%03d", i))
                        .append("\r\n$1\r\nv\r\n");
            }
            for (int c = 0; c < 8; c++) { // 400 SETs, each ~2 s in its WAL write: far more than the bound
                java.net.Socket s = new java.net.Socket("127.0.0.1", server.port());
                s.getOutputStream().write(pipeline.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                clients.add(s);
            }
            Thread.sleep(1000); // the first writes are inside RocksDB, the rest queued
        } finally {
            long t0 = System.nanoTime();
            server.close();
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            for (java.net.Socket s : clients) {
                s.close();
            }
            assertThat(seconds)
                    .as("close took %d s; the bound is 0.5 s plus the writes already inside RocksDB", seconds)
                    .isLessThan(20);
        }
    }
}
