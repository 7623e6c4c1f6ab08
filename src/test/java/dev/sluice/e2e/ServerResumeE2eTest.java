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

    @Test
    void aTenantSeesItsPartitionsErrorAndResumesItOnceTheCauseIsGone() {
        String name = "server-resume";
        Properties p = new Properties();
        p.setProperty("data.dir", dir.resolve("data").toString());
        p.setProperty("server.port", "0");
        p.setProperty("server.http.port", "0");
        p.setProperty("partitions", name);
        p.setProperty("env", "priority");
        p.setProperty("controls", "test-hooks");
        try (SluiceServer server = SluiceServer.start(ServerConfig.fromProperties(p, dir));
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
                    .hasMessageNotContaining("Partition.resume()");
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
}
