package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/** Admission refusals reach the client as -BUSY (not a hang) and quota refusals as -QUOTA. */
class OverloadTest {
    @Test
    void overloadGivesBusyNotAHang(@TempDir Path dir) {
        // the real static admission gate at 1 request/s, no waiting queue: almost every request is refused at once
        try (SluiceServer server = TestServers.start(
                        dir,
                        "controls",
                        "static-admission",
                        "tick.period.ms",
                        "10",
                        "control.static-admission.rate",
                        "1",
                        "control.static-admission.min.rate",
                        "1",
                        "control.static-admission.queue.max",
                        "1",
                        "control.static-admission.wait.max.ms",
                        "0",
                        "control.static-admission.burst.ms",
                        "0");
                Jedis j = TestServers.jedis(server)) {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() ->
                            server.node().latestSnapshot().partition("default").admissionRate() <= 1.0);
            Pipeline p = j.pipelined();
            List<Response<String>> replies = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                replies.add(p.set("k" + i, "v"));
            }
            List<Object> all = p.syncAndReturnAll(); // returns: the server answered every request
            assertThat(all).hasSize(200);
            long busy = all.stream()
                    .filter(o ->
                            o instanceof JedisDataException e && e.getMessage().startsWith("BUSY "))
                    .count();
            long ok = all.stream().filter("OK"::equals).count();
            assertThat(busy).isGreaterThan(150);
            assertThat(ok + busy).isEqualTo(200);
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 50; i++) {
                            j.get("k0");
                        }
                    })
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("BUSY partition 'default'");
            assertThat(j.ping()).isEqualTo("PONG"); // non-data commands are not admitted: still answered
            assertThat(j.info("stats")).containsPattern("rejected_busy:[1-9]");
        }
    }

    @Test
    void quotaGivesQuota(@TempDir Path dir) {
        try (SluiceServer server = TestServers.start(dir, "controls", "server-test-quota");
                Jedis j = TestServers.jedis(server)) {
            assertThatThrownBy(() -> j.set("k", "v"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("QUOTA default: write quota exceeded (test gate)");
            assertThatThrownBy(() -> j.mset("a", "1", "b", "2"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("QUOTA ");
            assertThat(j.get("k")).isNull(); // reads pass the gate, nothing was written
            assertThat(j.info("stats")).contains("rejected_quota:2");
        }
    }
}
