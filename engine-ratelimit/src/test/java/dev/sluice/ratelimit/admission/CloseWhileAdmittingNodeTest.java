package dev.sluice.ratelimit.admission;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests waiting in the admission gate when the node closes fail as every other request on a closed node does, with
 * IllegalStateException ("is closed"), not with OverloadedException, which tells a client to back off and retry
 * (lifecycle probe, 2026-11-28). Real RocksDB; the rate is fixed at 1 request/s with a 60-s wait bound, so the requests
 * queue for as long as the test needs.
 */
class CloseWhileAdmittingNodeTest {
    @TempDir
    Path dir;

    @Test
    void waitersFailWithIsClosedWhenTheNodeCloses() throws Exception {
        SluiceNode node = Sluice.open(SluiceConfig.builder(dir)
                .env("default")
                .tickPeriod(Duration.ofMillis(60_000)) // ticks are driven by the test
                .controls(List.of("static-admission"))
                .controlOption("static-admission", "rate", "1")
                .controlOption("static-admission", "min.rate", "1")
                .controlOption("static-admission", "wait.max.ms", "60000")
                .build());
        for (int i = 0; i < 4; i++) {
            node.controlPlane().tickOnce(); // the fixed rate applies from the second tick
        }
        Partition p = node.defaultPartition();
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiting.add(p.putAsync(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[] {1}, WriteMode.DEFAULT));
        }
        AtomicReference<Throwable> syncFailure = new AtomicReference<>();
        Thread sync = new Thread(() -> {
            try {
                p.put("sync".getBytes(StandardCharsets.UTF_8), new byte[] {1});
            } catch (Throwable t) {
                syncFailure.set(t);
            }
        });
        sync.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sync.getState() != Thread.State.WAITING && sync.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("the sync put waits in the gate").isLessThan(deadline);
            Thread.sleep(5);
        }
        node.close();
        sync.join(10_000);
        assertThat(syncFailure.get())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 'default' is closed");
        int failed = 0;
        for (CompletableFuture<Void> f : waiting) {
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause())
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("is closed");
                failed++;
            }
        }
        assertThat(failed).as("all but the few admitted before the close").isGreaterThanOrEqualTo(15);
    }

    /**
     * Two controllers that each put an admission gate in front of a partition are refused before anything is created
     * (probe, 2026-11-28: validation passed, and the open failed with an IllegalStateException after creating the store).
     */
    @Test
    void twoAdmissionControllersAreRefusedBeforeTheStoreIsCreated() {
        Path fresh = dir.resolve("fresh");
        SluiceConfig cfg = SluiceConfig.builder(fresh)
                .env("default")
                .controls(List.of("admission", "static-admission"))
                .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.open(cfg))
                .isInstanceOf(dev.sluice.core.ConfigException.class)
                .hasMessageContaining("controls = [admission, static-admission]")
                .hasMessageContaining("'admission' and 'static-admission' both install an admission gate");
        assertThat(fresh).doesNotExist();
    }

    /** A fixed rate below min.rate ran below the documented lowest rate (probe, 2026-11-28); now refused. */
    @Test
    void aStaticRateBelowMinRateIsRefused() {
        SluiceConfig cfg = SluiceConfig.builder(dir.resolve("fresh2"))
                .env("default")
                .controls(List.of("static-admission"))
                .controlOption("static-admission", "rate", "10")
                .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Sluice.validate(cfg))
                .isInstanceOf(dev.sluice.core.ConfigException.class)
                .hasMessageContaining(
                        "control.static-admission.rate = 10 is below control.static-admission.min.rate" + " = 100");
    }
}
