package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Batch;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission counts what it limits: a batch of n writes and a multiGet of n keys take n tokens, so batching cannot
 * bypass the admission rate. Real RocksDB; the rate is fixed (static admission, 100 requests/s) and the longest wait
 * is 100 ms, i.e. about ten tokens: a request that needs 50 tokens is refused at once, whatever the machine's speed.
 * No timing is measured.
 */
class BatchChargingNodeTest {
    @TempDir
    Path dir;

    private SluiceNode open() {
        return open("all");
    }

    private SluiceNode open(String scope) {
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .env("default")
                .tickPeriod(Duration.ofMillis(60_000)) // ticks are driven by the test
                .controls(List.of("static-admission"))
                .controlOption("static-admission", "rate", "100")
                .controlOption("static-admission", "wait.max.ms", "100")
                .controlOption("static-admission", "scope", scope)
                .build();
        SluiceNode node = Sluice.open(cfg);
        // The first tick has no interval yet; the second applies the fixed rate.
        for (int i = 0; i < 3 && node.controlPlane().events().total() == 0; i++) {
            node.controlPlane().tickOnce();
        }
        node.controlPlane().tickOnce(); // the latest snapshot now shows the applied rate
        return node;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A batch of 50 puts, keys {@code prefix + 0..49}. */
    static Batch fiftyWrites(String prefix) {
        Batch batch = new Batch();
        for (int i = 0; i < 50; i++) {
            batch.put(b(prefix + i), b("v"));
        }
        return batch;
    }

    /** Keys {@code k0..k49}. */
    static List<byte[]> fiftyKeys() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add(b("k" + i));
        }
        return keys;
    }

    @Test
    void aBatchOfFiftyWritesIsChargedFiftyTokensAndRefusedPastTheWaitBound() {
        try (SluiceNode node = open()) {
            Partition p = node.defaultPartition();
            assertThat(node.controlPlane().latest().partition("default").admissionRate())
                    .isEqualTo(100);
            Batch big = fiftyWrites("k");
            assertThatThrownBy(() -> p.write(big))
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("50");
            assertThat(p.get(b("k0")))
                    .as("nothing of the refused batch was written")
                    .isNull();
            assertThatThrownBy(() -> p.writeAsync(big, WriteMode.DEFAULT).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(OverloadedException.class);
            // A batch that fits in the wait bound still passes (3 tokens at 100/s: at most ~30 ms).
            p.write(new Batch().put(b("a"), b("1")).put(b("b"), b("2")).put(b("c"), b("3")));
            assertThat(p.get(b("c"))).isEqualTo(b("3"));
        }
    }

    @Test
    void aMultiGetOfFiftyKeysIsChargedFiftyTokens() {
        try (SluiceNode node = open()) {
            Partition p = node.defaultPartition();
            List<byte[]> keys = fiftyKeys();
            assertThatThrownBy(() -> p.multiGet(keys))
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("50");
            assertThatThrownBy(() -> p.multiGetAsync(keys).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(OverloadedException.class);
            assertThat(p.multiGet(keys.subList(0, 2))).hasSize(2);
        }
    }

    /**
     * {@code scope = writes} (the {@code cruisedb} stack of cruise-a-variant): reads take no token, so a multiGet of 50
     * keys passes the gate that refuses a batch of 50 writes, and single reads never queue behind it.
     */
    @Test
    void withScopeWritesReadsTakeNoTokenAndWritesStillDo() {
        try (SluiceNode node = open("writes")) {
            Partition p = node.defaultPartition();
            p.put(b("k0"), b("v0"));
            List<byte[]> keys = fiftyKeys();
            for (int round = 0; round < 20; round++) { // 1,000 keys read: ten seconds of tokens at 100/s
                List<byte[]> got = p.multiGet(keys);
                assertThat(got).hasSize(50);
                assertThat(got.get(0)).isEqualTo(b("v0"));
                assertThat(p.get(b("k0"))).isEqualTo(b("v0"));
            }
            Batch big = fiftyWrites("w");
            assertThatThrownBy(() -> p.write(big))
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("50");
            assertThat(p.get(b("w0"))).isNull();
        }
    }
}
