package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceException;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocksDB background errors, injected by the priority Env (EIO on flush writes, compaction writes, WAL syncs), reach the
 * caller with a clear error and show in {@code health()}, the snapshot and the {@code sluice.health} gauge; writes to a
 * stopped partition fail at once without an admission token; {@code resume()} brings writes back once the fault is
 * gone, and every acknowledged write is there, also after a reopen.
 */
class BackgroundErrorNodeTest {
    @TempDir
    Path dir;

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final List<Integer> acked = new ArrayList<>();

    private SluiceConfig.Builder cfg(String partition) {
        return SluiceConfig.builder(dir)
                .partitions(partition)
                .env("priority")
                .controls("test-hooks")
                .tickPeriod(Duration.ofSeconds(60)); // the test ticks by hand
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[200];
        new Random(i).nextBytes(v);
        return v;
    }

    private void write(Partition p, int from, int to) {
        for (int i = from; i < to; i++) {
            p.put(key(i), value(i), WriteMode.SYNC);
            acked.add(i);
        }
    }

    private void assertAllAcknowledged(Partition p) {
        for (int i : acked) {
            assertThat(p.get(key(i))).as("acknowledged key %d", i).isEqualTo(value(i));
        }
    }

    private double gauge(String partition) {
        return registry.get("sluice.health").tag("partition", partition).gauge().value();
    }

    /** The stopped partition refuses a put, a delete, a batch and an async put at once, taking no admission token. */
    private void assertWritesRefusedWithoutAToken(SluiceNode node, String name, String faultText) {
        Partition p = node.partition(name);
        NodeHooks.CountingGate gate = NodeHooks.GATES.get(name);
        long tokens = gate.writeTokens.get();
        assertThatThrownBy(() -> p.put(key(999_999), value(1)))
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("partition '" + name + "'")
                .hasMessageContaining(faultText)
                .hasMessageContaining("resume()");
        assertThatThrownBy(() -> p.delete(key(1))).isInstanceOf(SluiceException.class);
        assertThatThrownBy(() -> p.write(new dev.sluice.core.Batch().put(key(999_998), value(2))))
                .isInstanceOf(SluiceException.class);
        assertThatThrownBy(() ->
                        p.putAsync(key(999_997), value(3), WriteMode.DEFAULT).join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(SluiceException.class)
                .hasMessageContaining("resume()");
        assertThat(gate.writeTokens.get()).as("no admission token taken").isEqualTo(tokens);
        assertThat(p.get(key(acked.get(0)))).as("reads still work").isEqualTo(value(acked.get(0)));
    }

    private void resumeAndCheck(SluiceNode node, String name) {
        Partition p = node.partition(name);
        PartitionHealth after = p.resume();
        assertThat(after.ok()).as("healthy after resume: %s", after).isTrue();
        assertThat(after.writesStopped()).isFalse();
        assertThat(after.backgroundErrors()).isPositive();
        write(p, 10_000, 10_300);
        p.flush();
        assertAllAcknowledged(p);
        node.controlPlane().tickOnce();
        assertThat(node.latestSnapshot().partition(name).health().ok()).isTrue();
        assertThat(gauge(name)).isZero();
    }

    private void reopenAndCheck(String name) {
        try (SluiceNode again = Sluice.open(cfg(name).controls(List.of()).build())) {
            Partition p = again.partition(name);
            assertThat(p.health().ok()).isTrue();
            assertAllAcknowledged(p);
        }
    }

    @Test
    void aFailedFlushStopsWritesVisiblyAndResumeBringsThemBack() {
        String name = "flush-eio";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            assertThat(p.health()).isEqualTo(PartitionHealth.OK);
            write(p, 0, 1000);
            int rule = env.faults().inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE)));
            assertThatThrownBy(p::flush)
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("partition '" + name + "'")
                    .hasMessageContaining("sluice fault injection");
            PartitionHealth h = p.health();
            assertThat(h.ok()).isFalse();
            assertThat(h.backgroundError()).contains("FLUSH").contains("sluice fault injection");
            assertThat(h.writesStopped()).isTrue();
            assertThat(h.recoverable()).isTrue();
            node.controlPlane().tickOnce();
            assertThat(node.latestSnapshot().partition(name).health().writesStopped())
                    .isTrue();
            assertThat(p.snapshot().health().backgroundError()).contains("sluice fault injection");
            assertThat(gauge(name)).isEqualTo(2);
            assertWritesRefusedWithoutAToken(node, name, "sluice fault injection");
            assertThat(env.faults().remove(rule)).isTrue();
            resumeAndCheck(node, name);
        }
        reopenAndCheck(name);
    }

    /**
     * resume() closes open scans while another thread iterates them. Until 2026-11-26 next() checked the closed flag
     * before taking the lifecycle lock, so a resume in between freed the native iterator under it: SIGSEGV (found by a
     * hostile-client review: 3 crashes in 3 runs). Now the scanning thread sees IllegalStateException, never a crash.
     */
    @Test
    void resumeWhileAnotherThreadScansClosesTheScanWithoutCrashingTheJvm() throws Exception {
        String name = "resume-scan";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            write(p, 0, 2000);
            p.flush();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger closedUnderIt = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicReference<Throwable> unexpected =
                    new java.util.concurrent.atomic.AtomicReference<>();
            Thread scanner = new Thread(() -> {
                while (!stop.get()) {
                    try (dev.sluice.core.ScanIterator it = p.scan(dev.sluice.core.KeyRange.all())) {
                        while (it.hasNext()) {
                            it.next();
                        }
                    } catch (IllegalStateException e) {
                        closedUnderIt.incrementAndGet(); // closed by resume(): the documented outcome
                    } catch (SluiceException e) {
                        // the partition was reopening: also documented (enter() during a failed reopen)
                    } catch (Throwable t) {
                        unexpected.set(t);
                        return;
                    }
                }
            });
            scanner.start();
            for (int round = 0; round < 20; round++) {
                int rule = env.faults().inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE)));
                p.put(key(50_000 + round), value(50_000 + round), WriteMode.SYNC);
                assertThatThrownBy(p::flush).isInstanceOf(SluiceException.class);
                assertThat(env.faults().remove(rule)).isTrue();
                assertThat(p.resume().ok()).isTrue();
                acked.add(50_000 + round);
            }
            stop.set(true);
            scanner.join(60_000);
            assertThat(unexpected.get()).as("the scanning thread's failure").isNull();
            assertThat(closedUnderIt.get())
                    .as("scans closed by resume() while iterating")
                    .isPositive();
            assertAllAcknowledged(p);
        }
    }

    @Test
    void aFailedCompactionIsReportedAndWritesFollowWhatRocksDbDecided() {
        String name = "compaction-eio";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            int rule = env.faults()
                    .inject(FaultRule.eio(
                                    EnumSet.of(IoClass.COMPACTION_L0, IoClass.COMPACTION_HIGH, IoClass.COMPACTION_DEEP),
                                    Set.of(FaultRule.Op.WRITE))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.SST)));
            for (int f = 0; f < 4; f++) { // the 4th L0 file triggers a compaction, whose writes fail
                for (int j = 0; j < 500; j++) { // overlapping files: a real merge, not a trivial move
                    p.put(key(j * 4 + f), value(j * 4 + f), WriteMode.SYNC);
                    acked.add(j * 4 + f);
                }
                try {
                    p.flush();
                } catch (SluiceException e) {
                    // The flush of an earlier file can start the compaction, which may fail while a later flush
                    // waits: that flush then reports the compaction's background error (seen once in ~5 runs). Any
                    // other failure is a failure of the test.
                    assertThat(e.getMessage())
                            .contains("background error COMPACTION")
                            .contains("sluice fault injection");
                }
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> !p.health().ok());
            PartitionHealth h = p.health();
            assertThat(h.backgroundError()).contains("COMPACTION").contains("sluice fault injection");
            assertThat(env.faults().hits(rule)).isPositive();
            if (h.writesStopped()) {
                assertWritesRefusedWithoutAToken(node, name, "sluice fault injection");
            } else {
                write(p, 5000, 5010); // health says writes are accepted: they are
            }
            assertThat(env.faults().remove(rule)).isTrue();
            resumeAndCheck(node, name);
        }
        reopenAndCheck(name);
    }

    @Test
    void aFailedWalSyncFailsTheWriterAndStopsWritesUntilResume() {
        String name = "wal-sync-eio";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            write(p, 0, 500);
            int rule = env.faults()
                    .inject(FaultRule.eio(Set.of(IoClass.WAL), Set.of(FaultRule.Op.SYNC))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.WAL)));
            assertThatThrownBy(() -> p.put(key(600), value(600), WriteMode.SYNC))
                    .as("the writer whose sync failed is told, and that the outcome is unknown")
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("partition '" + name + "'")
                    .hasMessageContaining("sluice fault injection")
                    .hasMessageContaining("its outcome is unknown");
            assertThat(p.get(key(600))).as("not in the memtable").isNull();
            PartitionHealth h = p.health();
            assertThat(h.ok()).as("health: %s", h).isFalse();
            assertThat(h.backgroundError()).contains("sluice fault injection");
            assertThat(h.writesStopped()).isTrue();
            // nothing retries a non-retryable error, from its first instant (until 2026-11-29 the first second read
            // as "RocksDB is retrying on its own", and refusals gave that advice)
            assertThat(h.autoRecovering()).isFalse();
            assertThatThrownBy(() -> p.put(key(601), value(601)))
                    .hasMessageContaining("Fix the cause")
                    .hasMessageNotContaining("retrying on its own");
            assertWritesRefusedWithoutAToken(node, name, "sluice fault injection");
            assertThat(env.faults().remove(rule)).isTrue();
            resumeAndCheck(node, name);
            // RocksDB appended the record before its sync failed: the replay at resume applies it, as the message
            // warned
            assertThat(p.get(key(600))).as("the failed put, replayed").isEqualTo(value(600));
        }
        reopenAndCheck(name);
    }

    @Test
    void aResumeThatCannotReopenLeavesThePartitionRefusingRequestsUntilAResumeSucceeds() {
        String name = "reopen-fails";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            write(p, 0, 500);
            int flush = env.faults().inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE)));
            assertThatThrownBy(p::flush).isInstanceOf(SluiceException.class);
            assertThat(p.health().writesStopped()).isTrue();
            // the cause is not fixed yet, and every MANIFEST write fails: the reopen cannot write its new MANIFEST
            int manifest = env.faults()
                    .inject(FaultRule.eio(EnumSet.allOf(IoClass.class), Set.of(FaultRule.Op.WRITE))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.MANIFEST)));
            assertThatThrownBy(p::resume)
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("partition '" + name + "'")
                    .hasMessageContaining("could not reopen")
                    .hasMessageContaining("sluice fault injection");
            assertThatThrownBy(() -> p.get(key(1)))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("unavailable")
                    .hasMessageContaining("resume()");
            assertThatThrownBy(() -> p.put(key(1), value(1))).isInstanceOf(SluiceException.class);
            // reported, not thrown (until 2026-11-28 health() threw, the gauge read NaN and every tick failed)
            PartitionHealth down = p.health();
            assertThat(down.backgroundError()).startsWith("unavailable: resume() could not reopen it");
            assertThat(down.writesStopped()).isTrue();
            assertThat(down.recoverable()).isTrue();
            assertThat(node.sample().partition(name).health()).isEqualTo(down);
            node.controlPlane().tickOnce(); // the node's controllers keep running
            assertThat(node.controlPlane().latest().partition(name).health().backgroundError())
                    .startsWith("unavailable");
            assertThat(registry.get("sluice.health")
                            .tag("partition", name)
                            .gauge()
                            .value())
                    .isEqualTo(2.0);
            assertThat(env.faults().remove(manifest)).isTrue();
            assertThat(env.faults().remove(flush)).isTrue();
            resumeAndCheck(node, name);
        }
        reopenAndCheck(name);
    }

    @Test
    void aRetryableFlushErrorThatRocksDbRecoversFromClearsItselfWithoutResume() {
        String name = "flush-retryable";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            write(p, 0, 1000);
            int rule = env.faults()
                    .inject(FaultRule.eio(Set.of(IoClass.FLUSH), Set.of(FaultRule.Op.WRITE))
                            .retryable());
            assertThatThrownBy(p::flush).isInstanceOf(SluiceException.class);
            // RocksDB may already be recovering (or done) by the time health is read: the error count is what stays
            assertThat(p.health().backgroundErrors()).isPositive();
            assertThat(env.faults().remove(rule)).isTrue();
            // RocksDB retries on its own (bgerror_resume_retry_interval, 1 s by default)
            await().atMost(Duration.ofSeconds(60)).until(() -> p.health().ok());
            write(p, 1000, 1100);
            p.flush();
            assertAllAcknowledged(p);
        }
        reopenAndCheck(name);
    }

    /**
     * A retryable WAL write error that RocksDB recovers from on its own reads healthy again (a probe, 2026-11-29:
     * writes flowed again a second after the fault was cleared, but health kept the error and "auto-recovering" for as
     * long as it was watched, also after a real disk-full on the WAL).
     */
    @Test
    void aRetryableWalWriteErrorThatRocksDbRecoversFromClearsItselfWithoutResume() {
        String name = "wal-retryable";
        try (SluiceNode node = Sluice.open(cfg(name).build(), registry)) {
            PriorityEnv env = NodeHooks.ENVS.get(name);
            Partition p = node.partition(name);
            write(p, 0, 500);
            int rule = env.faults()
                    .inject(FaultRule.eio(Set.of(IoClass.WAL), Set.of(FaultRule.Op.WRITE))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.WAL))
                            .retryable());
            assertThatThrownBy(() -> p.put(key(600), value(600), WriteMode.SYNC))
                    .isInstanceOf(SluiceException.class);
            assertThat(p.health().ok()).isFalse();
            assertThat(env.faults().remove(rule)).isTrue();
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                p.put(key(700), value(700), WriteMode.SYNC);
                return true;
            });
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(p.health().ok())
                            .as("health: %s", p.health())
                            .isTrue());
            write(p, 1000, 1100);
            assertAllAcknowledged(p);
        }
        reopenAndCheck(name);
    }
}
