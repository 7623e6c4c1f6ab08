package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process crash loses no acknowledged write, {@link WriteMode#ASYNC} included: a child JVM writes (alternately SYNC
 * and ASYNC) and prints "ACK i" after each acknowledged put; the parent kills it with SIGKILL mid-stream, reopens the
 * store and finds every acknowledged key. The page cache survives a killed process, so this test cannot tell SYNC from
 * ASYNC; that SYNC writes survive a power loss and ASYNC writes after the last sync do not is shown by the e2e
 * PowerLossTest, which cuts the power of the priority Env.
 */
class DurabilityTest {
    @TempDir
    Path dir;

    /** The child: writes key-i = value-i forever (even i SYNC, odd i ASYNC), acknowledging each on stdout. */
    public static final class Child {
        public static void main(String[] args) {
            SluiceNode node = Sluice.open(SluiceConfig.builder(Path.of(args[0]))
                    .partitions("p1", "p2")
                    .build());
            System.out.println("READY");
            System.out.flush();
            for (int i = 0; ; i++) {
                String p = i % 2 == 0 ? "p1" : "p2";
                node.partition(p)
                        .put(
                                ("key-" + i).getBytes(StandardCharsets.UTF_8),
                                ("value-" + i).getBytes(StandardCharsets.UTF_8),
                                i % 2 == 0 ? WriteMode.SYNC : WriteMode.ASYNC);
                System.out.println("ACK " + i);
                System.out.flush();
            }
        }
    }

    @Test
    void writesAcknowledgedBeforeSigkillArePresentAfterReopenAsyncIncluded() throws Exception {
        Process child = ChildJvm.of(Child.class, "256m", dir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        int lastAck = -1;
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("ACK ")) {
                    lastAck = Integer.parseInt(line.substring(4));
                    if (lastAck >= 300) {
                        break;
                    }
                }
            }
            child.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no close
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);
        assertThat(lastAck).isGreaterThanOrEqualTo(300);
        try (SluiceNode node =
                Sluice.open(SluiceConfig.builder(dir).partitions("p1", "p2").build())) {
            for (int i = 0; i <= lastAck; i++) {
                String p = i % 2 == 0 ? "p1" : "p2";
                assertThat(node.partition(p).get(("key-" + i).getBytes(StandardCharsets.UTF_8)))
                        .as("acknowledged key-%d", i)
                        .isEqualTo(("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
