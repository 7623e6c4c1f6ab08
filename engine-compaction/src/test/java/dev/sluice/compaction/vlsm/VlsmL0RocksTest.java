package dev.sluice.compaction.vlsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.KeyRange;
import dev.sluice.core.KeyValue;
import dev.sluice.core.Partition;
import dev.sluice.core.ScanIterator;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link VlsmL0} on real RocksDB (256-KiB SSTs of the {@code test-vlsm-small} profile, default Env): which files each
 * L0→L1 compaction really read (RocksDB's event log in the partition's LOG), and a model check of FIFO compactions
 * against a TreeMap across a reopen.
 */
class VlsmL0RocksTest {
    static final String CTL = "vlsm-l0";
    static final int KEYS = 12_000;

    @TempDir
    Path dir;

    private static SluiceConfig config(Path data, boolean withController) {
        SluiceConfig.Builder b = SluiceConfig.builder(data)
                .env("default")
                .profile(SmallVlsmProfile.NAME)
                .tickPeriod(Duration.ofMillis(50));
        if (withController) {
            b.controls(List.of(CTL));
        }
        return b.build();
    }

    /**
     * L0 fills with up to 4 flushed files at a time (below RocksDB's size trigger: L0 bytes reach L1's 2 MiB target at 8
     * files); the key space (1,200 keys of 1 KiB) keeps L1 under its target, so no L1→L2 compaction changes L1 between
     * a decision and its run. Then every compaction that read L0 is a FIFO move: one L0 file, the oldest in L0 when it
     * was picked, and exactly the L1 files that overlapped it then.
     */
    @Test
    void everyL0CompactionMovesTheOldestFileWithOnlyItsOverlappingL1Files() throws IOException {
        Path data = dir.resolve("db");
        List<LsmSnapshot> ticks = new CopyOnWriteArrayList<>();
        Random rnd = new Random(42);
        try (SluiceNode node = Sluice.open(config(data, true))) {
            node.controlPlane().addSnapshotListener(s -> ticks.add(s.partition("default")));
            Partition p = node.defaultPartition();
            await().atMost(Duration.ofSeconds(30)).until(() -> p.snapshot().l0CompactionTrigger() == 20);
            for (int round = 0; round < 8; round++) {
                int files = 1 + rnd.nextInt(4);
                for (int f = 0; f < files; f++) {
                    int lo = rnd.nextInt(900); // each L0 file covers a part of the key space
                    for (int i = 0; i < 150; i++) { // ~150 KiB: one L0 file each flush
                        int k = lo + rnd.nextInt(300);
                        p.put(key(k), value(k, rnd));
                    }
                    p.flush();
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> p.snapshot().l0Files() == 0);
            }
        }
        // manual compactions cut their outputs at the level's target file size, as RocksDB's own ones do
        LsmSnapshot last = ticks.get(ticks.size() - 1);
        assertThat(last.levels().get(1).files())
                .as("L1 files after the FIFO moves")
                .hasSizeGreaterThan(1)
                .allSatisfy(f -> assertThat(f.sizeBytes()).isLessThanOrEqualTo(2 * SmallVlsmProfile.SST));
        List<LogCompaction> log = compactions(data.resolve("partitions/default"));
        List<LogCompaction> fromL0 = log.stream().filter(c -> !c.l0().isEmpty()).toList();
        assertThat(fromL0).as("L0 compactions in the LOG").hasSizeGreaterThanOrEqualTo(8);
        assertThat(fromL0.stream().mapToInt(c -> c.l1().size()).max().orElse(0))
                .as("L1 had several files, so overlap was selective")
                .isGreaterThan(1);
        for (LogCompaction c : fromL0) {
            assertThat(c.l0()).as("job %d reads one L0 file", c.job()).hasSize(1);
            long moved = c.l0().get(0);
            // the decision: the last tick before the compaction that saw the file in L0 and nothing in flight
            LsmSnapshot at = decisionTick(ticks, moved);
            List<SstFile> l0 = at.levels().get(0).files();
            assertThat(VlsmL0.oldest(l0).fileNumber())
                    .as("job %d moved the oldest L0 file", c.job())
                    .isEqualTo(moved);
            SstFile f =
                    l0.stream().filter(x -> x.fileNumber() == moved).findFirst().orElseThrow();
            Set<Long> overlapping = VlsmL0.overlapping(f, at.levels().get(1)).stream()
                    .map(SstFile::fileNumber)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(new TreeSet<>(c.l1())).as("job %d's L1 inputs", c.job()).isEqualTo(overlapping);
            assertThat(c.l2()).as("no deeper level read").isEmpty();
        }
    }

    /** The last tick at which {@code fileNumber} was in L0 and no L0 file was being compacted. */
    private static LsmSnapshot decisionTick(List<LsmSnapshot> ticks, long fileNumber) {
        LsmSnapshot best = null;
        for (LsmSnapshot s : ticks) {
            List<SstFile> l0 = s.levels().get(0).files();
            boolean there = l0.stream().anyMatch(f -> f.fileNumber() == fileNumber);
            if (there && l0.stream().noneMatch(SstFile::beingCompacted)) {
                best = s;
            }
            if (there && l0.stream().anyMatch(f -> f.fileNumber() == fileNumber && f.beingCompacted())) {
                break;
            }
        }
        assertThat(best).as("a tick saw %d in L0", fileNumber).isNotNull();
        return best;
    }

    /**
     * Model check: random puts, overwrites and deletes (deletes of present and absent keys) against a TreeMap, with the
     * controller moving L0 files; every key's value, and the full scan, equal the model — while open, after a reopen
     * without the controller, and after one with it. No key is lost and no deleted or overwritten value comes back.
     */
    @Test
    void fifoCompactionsLoseNoKeyAndResurrectNone() {
        Path data = dir.resolve("model");
        TreeMap<String, byte[]> model = new TreeMap<>();
        Random rnd = new Random(7);
        int moved;
        try (SluiceNode node = Sluice.open(config(data, true))) {
            Partition p = node.defaultPartition();
            for (int op = 0; op < 60_000; op++) {
                int k = rnd.nextInt(KEYS);
                int r = rnd.nextInt(100);
                if (r < 25) {
                    p.delete(key(k));
                    model.remove(hex(key(k)));
                } else {
                    byte[] v = new byte[50 + rnd.nextInt(700)];
                    rnd.nextBytes(v);
                    p.put(key(k), v);
                    model.put(hex(key(k)), v);
                }
                if (op % 1500 == 1499) {
                    p.flush();
                }
                if (op % 6000 == 5999) {
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> p.snapshot().l0Files() <= 1);
                    check(p, model);
                }
            }
            p.flush();
            await().atMost(Duration.ofSeconds(60)).until(() -> p.snapshot().l0Files() == 0);
            moved = (int) node.recentEvents().stream()
                    .filter(e ->
                            e.controller().equals("manual-compaction") && e.outcome() == ControlEvent.Outcome.APPLIED)
                    .count();
            assertThat(p.snapshot().levels().get(2).fileCount())
                    .as("data reached L2")
                    .isGreaterThan(0);
            check(p, model);
        }
        assertThat(moved).as("FIFO moves applied").isGreaterThanOrEqualTo(10);
        try (SluiceNode node = Sluice.open(config(data, false))) {
            check(node.defaultPartition(), model);
            assertThat(node.sample().partition("default").l0CompactionTrigger())
                    .as("the raised trigger does not outlive the node: the profile's value is back")
                    .isEqualTo(4);
        }
        try (SluiceNode node = Sluice.open(config(data, true))) {
            check(node.defaultPartition(), model);
        }
    }

    private static void check(Partition p, TreeMap<String, byte[]> model) {
        for (int k = 0; k < KEYS; k++) {
            byte[] want = model.get(hex(key(k)));
            assertThat(p.get(key(k))).as("key %d", k).isEqualTo(want);
        }
        List<String> seen = new ArrayList<>();
        try (ScanIterator it = p.scan(KeyRange.all())) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                seen.add(hex(kv.key()));
                assertThat(kv.value()).isEqualTo(model.get(hex(kv.key())));
            }
        }
        assertThat(seen).containsExactlyElementsOf(model.keySet());
    }

    record LogCompaction(long job, String reason, List<Long> l0, List<Long> l1, List<Long> l2) {}

    private static final Pattern STARTED = Pattern.compile(
            "\"job\": (\\d+), \"event\": \"compaction_started\"," + " \"compaction_reason\": \"(\\w+)\"(.*?)\"score\"");
    private static final Pattern FILES = Pattern.compile("\"files_L(\\d+)\": \\[([0-9, ]*)\\]");

    /** compaction_started events of RocksDB's event log (EVENT_LOG_v1 lines of the info LOG). */
    static List<LogCompaction> compactions(Path dbDir) throws IOException {
        List<LogCompaction> out = new ArrayList<>();
        List<Path> logs;
        try (var s = Files.list(dbDir)) {
            logs = s.filter(x -> x.getFileName().toString().startsWith("LOG"))
                    .sorted()
                    .toList();
        }
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                Matcher m = STARTED.matcher(line);
                if (!m.find()) {
                    continue;
                }
                Map<Integer, List<Long>> files = new HashMap<>();
                Matcher f = FILES.matcher(m.group(3));
                while (f.find()) {
                    List<Long> nums = new ArrayList<>();
                    for (String n : f.group(2).split(",")) {
                        if (!n.isBlank()) {
                            nums.add(Long.parseLong(n.trim()));
                        }
                    }
                    files.put(Integer.parseInt(f.group(1)), nums);
                }
                out.add(new LogCompaction(
                        Long.parseLong(m.group(1)),
                        m.group(2),
                        files.getOrDefault(0, List.of()),
                        files.getOrDefault(1, List.of()),
                        files.getOrDefault(2, List.of())));
            }
        }
        return out;
    }

    static byte[] key(int k) {
        return ByteBuffer.allocate(4).putInt(k).array(); // big-endian: key order = number order
    }

    /** 1,000 random bytes (incompressible, so L1 spans several 256-KiB files). */
    static byte[] value(int k, Random rnd) {
        byte[] v = new byte[1000];
        rnd.nextBytes(v);
        return v;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
