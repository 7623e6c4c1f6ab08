package dev.sluice.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A crash loop: the node server ({@code ServerMain} in its own JVM) is killed with SIGKILL four times while a Redis
 * client (Jedis) writes to it, and restarted each time on the same port and data directory. After every restart each
 * write the client got {@code OK} for is there with its value, and the MSET in flight at the kill is all there or not at
 * all (one atomic batch). The server's writes are not fsynced by default, but SIGKILL leaves the page cache, so none may
 * be lost; a power cut is PowerLossTest's case. Finally the server stops on SIGTERM with exit code 0 and the engine,
 * opened directly, holds the same data.
 */
class ServerCrashLoopE2eTest {
    private static final int CYCLES = 4;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedWriteSurvivesRepeatedSigkills() throws Exception {
        int port = ServerProcess.freePort();
        Path cfg = dir.resolve("node.properties");
        Files.writeString(
                cfg, String.join("\n", "data.dir = data", "server.port = " + port, "server.http.port = 0", ""));
        Map<String, String> acked = new ConcurrentHashMap<>();
        Random random = new Random(20261127);
        String[] inFlightMset = null; // the MSET sent last and not acknowledged before the kill: {key1, key2, value}
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            Process server = ServerProcess.start(cfg, dir.resolve("server-" + cycle + ".log"));
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                assertAllThere(j, acked, "after kill " + cycle);
                if (inFlightMset != null) {
                    String a = j.get(inFlightMset[0]), b = j.get(inFlightMset[1]);
                    assertThat(a == null && b == null ? "none" : a + "/" + b)
                            .as("the MSET in flight at kill %d is all there or not at all", cycle)
                            .isIn("none", inFlightMset[2] + "/" + inFlightMset[2]);
                }
            }
            int before = acked.size();
            AtomicInteger writes = new AtomicInteger();
            AtomicReference<String[]> lastMset = new AtomicReference<>();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            int c = cycle;
            Thread writer = new Thread(() -> {
                try (Jedis w = new Jedis("127.0.0.1", port)) {
                    for (int i = 0; ; i++) {
                        String k = "c" + c + ":k" + i, v = "v" + i + "@" + c;
                        if (i % 8 == 7) {
                            String k2 = k + ":pair";
                            lastMset.set(new String[] {k, k2, v});
                            assertThat(w.mset(k, v, k2, v)).isEqualTo("OK");
                            acked.put(k, v);
                            acked.put(k2, v);
                            lastMset.set(null);
                        } else {
                            assertThat(w.set(k, v)).isEqualTo("OK");
                            acked.put(k, v);
                        }
                        writes.incrementAndGet();
                    }
                } catch (JedisConnectionException expected) {
                    // the kill
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            });
            writer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (writes.get() < 300 && writer.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(random.nextInt(400)); // the kill lands at a different point of the stream each cycle
            server.destroyForcibly(); // SIGKILL: no shutdown hook, no close, no flush
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            writer.join(60_000);
            assertThat(writer.isAlive())
                    .as("the writer saw the connection drop")
                    .isFalse();
            assertThat(unexpected.get())
                    .as("the writer failed other than by the kill")
                    .isNull();
            assertThat(acked.size())
                    .as("cycle %d acknowledged writes before the kill", cycle)
                    .isGreaterThan(before + 300);
            inFlightMset = lastMset.get();
        }
        Process server = ServerProcess.start(cfg, dir.resolve("server-last.log"));
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            assertAllThere(j, acked, "after the last kill");
        } finally {
            server.destroy(); // SIGTERM
        }
        assertThat(server.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(dir.resolve("server-last.log"), UTF_8);
        assertThat(server.exitValue()).as(log).isZero();
        try (SluiceNode node =
                Sluice.open(SluiceConfig.builder(dir.resolve("data")).build())) {
            Partition p = node.defaultPartition();
            List<String> missing = new ArrayList<>();
            acked.forEach((k, v) -> {
                byte[] got = p.get(k.getBytes(UTF_8));
                if (got == null || !v.equals(new String(got, UTF_8))) {
                    missing.add(k);
                }
            });
            assertThat(missing).as("acknowledged writes missing in the engine").isEmpty();
        }
    }

    /** Every acknowledged key has its acknowledged value (pipelined GETs). */
    private static void assertAllThere(Jedis j, Map<String, String> acked, String when) {
        Map<String, Response<String>> got = new HashMap<>();
        Pipeline p = j.pipelined();
        acked.keySet().forEach(k -> got.put(k, p.get(k)));
        p.sync();
        List<String> wrong = new ArrayList<>();
        got.forEach((k, r) -> {
            if (!acked.get(k).equals(r.get())) {
                wrong.add(k + "=" + r.get());
            }
        });
        assertThat(wrong)
                .as("acknowledged writes missing or wrong %s (of %d)", when, acked.size())
                .isEmpty();
    }
}
