package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * A SIGKILL while a partition is being created: a child JVM creates {@code partitions/b} with RocksDB on the priority
 * Env, whose DELAY fault rule pauses creation at a chosen write or sync; the parent kills the child there and opens the
 * store with partitions a and b. Every step must open, with b empty and writable.
 */
class InterruptedCreationE2eTest {
    @TempDir
    Path dir;

    /** The step to pause at: "<file kind>:<op>:<matching ops to let pass first>". */
    public static final class Creator {
        public static void main(String[] args) throws Exception {
            String[] step = args[1].split(":");
            PriorityEnv env = PriorityEnv.open();
            FaultRule rule = FaultRule.delay(
                            EnumSet.allOf(IoClass.class),
                            EnumSet.of(FaultRule.Op.valueOf(step[1])),
                            Duration.ofMinutes(5))
                    .withFileKinds(EnumSet.of(FaultRule.FileKind.valueOf(step[0])))
                    .afterOps(Long.parseLong(step[2]));
            int id = env.faults().inject(rule);
            Thread watcher = new Thread(() -> {
                while (env.faults().hits(id) == 0) {
                    Thread.onSpinWait();
                }
                System.out.println("PAUSED");
                System.out.flush();
            });
            watcher.setDaemon(true);
            watcher.start();
            Options o = new Options().setCreateIfMissing(true).setEnv(env.env());
            RocksDB.open(o, args[0]); // paused inside by the rule; killed there
            System.out.println("CREATED");
            System.out.flush();
        }
    }

    private static List<String> files(Path p) throws Exception {
        try (Stream<Path> s = Files.list(p)) {
            return s.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"OTHER:WRITE:0", "OTHER:SYNC:0", "MANIFEST:WRITE:0", "MANIFEST:SYNC:0", "OTHER:WRITE:1"})
    void aPartitionWhoseCreationWasKilledAtAnyStepOpensEmptyAndWritable(String step) throws Exception {
        List<String> leftovers = killCreationAt(step);
        assertThat(leftovers)
                .as("killed before CURRENT")
                .doesNotContain("CURRENT")
                .contains("LOCK");
        opensEmptyAndWritable();
    }

    /**
     * Killed later in RocksDB's open, after CURRENT: at every write and sync from the new MANIFEST to the OPTIONS file,
     * RocksDB 9.10's last one (there is no fourth OTHER write). A never-flushed partition with an OPTIONS file and no WAL
     * is refused as a deleted WAL (StoreCheck); measured here (2026-11-28): 000004.log exists at every step after
     * CURRENT, and OPTIONS is still its temp file at the last, so no kill leaves that state.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "MANIFEST:WRITE:1",
                "MANIFEST:SYNC:1",
                "OTHER:WRITE:2",
                "OTHER:SYNC:2",
                "OTHER:WRITE:3",
                "OTHER:SYNC:3"
            })
    void aPartitionWhoseOpenWasKilledAfterCurrentOpensEmptyAndWritable(String step) throws Exception {
        List<String> leftovers = killCreationAt(step);
        assertThat(leftovers).as("killed after CURRENT").contains("CURRENT", "000004.log");
        opensEmptyAndWritable();
    }

    private List<String> killCreationAt(String step) throws Exception {
        try (SluiceNode n = Sluice.open(
                SluiceConfig.builder(dir).env("default").partitions("a").build())) {
            n.partition("a").put("k".getBytes(), "va".getBytes(), WriteMode.SYNC);
        }
        Path b = dir.resolve("partitions/b");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "-Xmx128m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Creator.class.getName(),
                        b.toString(),
                        step)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = r.readLine();
            assertThat(line).as("the child paused creation at " + step).isEqualTo("PAUSED");
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        List<String> leftovers = files(b);
        System.out.println("killed at " + step + ": " + leftovers);
        return leftovers;
    }

    private void opensEmptyAndWritable() throws Exception {
        SluiceConfig cfg =
                SluiceConfig.builder(dir).env("default").partitions("a", "b").build();
        try (SluiceNode n = Sluice.open(cfg)) {
            assertThat(n.partition("a").get("k".getBytes())).isEqualTo("va".getBytes());
            assertThat(n.partition("b").get("k".getBytes())).isNull();
            n.partition("b").put("k".getBytes(), "vb".getBytes(), WriteMode.SYNC);
        }
        try (SluiceNode n = Sluice.open(cfg)) {
            assertThat(n.partition("b").get("k".getBytes())).isEqualTo("vb".getBytes());
        }
    }
}
