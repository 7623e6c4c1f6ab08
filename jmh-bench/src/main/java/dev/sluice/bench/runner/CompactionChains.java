package dev.sluice.bench.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The width of each memory→L1 step of a compaction chain (vLSM §3, Fig. 2): for every compaction that read L0 and wrote
 * a deeper level — L0→L1, or L0→base level with dynamic level targets — the number of input files (L0 plus the output
 * level's files it overlapped) and its input bytes. Intra-L0 compactions are not counted (they move nothing out of L0).
 *
 * <p>Source: RocksDB's own compaction events, as its event logger writes them into the partition's info {@code LOG}
 * ({@code EVENT_LOG_v1} lines: {@code compaction_started} gives {@code files_L<n>} and {@code input_data_size},
 * {@code compaction_finished} gives {@code output_level}; joined by {@code job} within one log file). Both automatic
 * compactions and {@code compactFiles} are logged there. Only compactions started inside the given wall-clock ranges
 * (microseconds since the epoch, RocksDB's {@code time_micros}) count.
 */
final class CompactionChains {
    private static final Pattern EVENT = Pattern.compile(
            "EVENT_LOG_v1 \\{\"time_micros\": (\\d+), \"job\": (\\d+), \"event\": \"(compaction_started|compaction_finished)\"(.*)");
    private static final Pattern FILES = Pattern.compile("\"files_L(\\d+)\": \\[([0-9, ]*)\\]");
    private static final Pattern INPUT_SIZE = Pattern.compile("\"input_data_size\": (\\d+)");
    private static final Pattern OUTPUT_LEVEL = Pattern.compile("\"output_level\": (\\d+)");

    private CompactionChains() {}

    /** One L0→deeper compaction. */
    record Step(long timeMicros, int files, long bytes, int outputLevel) {}

    /** The steps in the info LOG files of {@code dbDir} started within one of {@code ranges} ({@code [from, to)} µs). */
    static List<Step> read(Path dbDir, List<long[]> ranges) {
        List<Step> out = new ArrayList<>();
        List<Path> logs;
        try (Stream<Path> s = Files.list(dbDir)) {
            logs = s.filter(p -> p.getFileName().toString().startsWith("LOG"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dbDir, e);
        }
        for (Path log : logs) {
            try (Stream<String> lines = Files.lines(log)) {
                out.addAll(parse(lines.toList(), ranges));
            } catch (IOException | UncheckedIOException e) {
                // a LOG that cannot be read leaves its compactions out; the summary says how many were counted
            }
        }
        return out;
    }

    /** The steps in one log file's lines. */
    static List<Step> parse(List<String> lines, List<long[]> ranges) {
        Map<Long, long[]> started = new HashMap<>(); // job -> {time, files, bytes}
        List<Step> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = EVENT.matcher(line);
            if (!m.find()) {
                continue;
            }
            long time = Long.parseLong(m.group(1));
            long job = Long.parseLong(m.group(2));
            String rest = m.group(4);
            if (m.group(3).equals("compaction_started")) {
                int l0 = 0;
                int files = 0;
                Matcher f = FILES.matcher(rest);
                while (f.find()) {
                    int n = count(f.group(2));
                    files += n;
                    if (f.group(1).equals("0")) {
                        l0 = n;
                    }
                }
                Matcher b = INPUT_SIZE.matcher(rest);
                if (l0 > 0 && b.find() && inside(time, ranges)) {
                    started.put(job, new long[] {time, files, Long.parseLong(b.group(1))});
                }
            } else {
                long[] s = started.remove(job);
                Matcher o = OUTPUT_LEVEL.matcher(rest);
                if (s != null && o.find()) {
                    int level = Integer.parseInt(o.group(1));
                    if (level > 0) {
                        out.add(new Step(s[0], (int) s[1], s[2], level));
                    }
                }
            }
        }
        return out;
    }

    private static int count(String list) {
        int n = 0;
        for (String p : list.split(",")) {
            if (!p.isBlank()) {
                n++;
            }
        }
        return n;
    }

    private static boolean inside(long time, List<long[]> ranges) {
        for (long[] r : ranges) {
            if (time >= r[0] && time < r[1]) {
                return true;
            }
        }
        return false;
    }

    /** The summary for results.json; null when the log had no such compaction. */
    static Results.Chains summarize(List<Step> steps) {
        if (steps.isEmpty()) {
            return null;
        }
        Map<String, Long> files = new TreeMap<>((a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b)));
        Map<String, Long> bytes = new TreeMap<>((a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b)));
        long[] f = new long[steps.size()];
        long[] by = new long[steps.size()];
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            f[i] = s.files();
            by[i] = s.bytes();
            files.merge(String.valueOf(s.files()), 1L, Long::sum);
            bytes.merge(String.valueOf(mibBucket(s.bytes())), 1L, Long::sum);
        }
        java.util.Arrays.sort(f);
        java.util.Arrays.sort(by);
        return new Results.Chains(
                steps.size(),
                Math.round(java.util.Arrays.stream(f).average().orElse(0) * 10) / 10.0,
                f[(int) Math.min(f.length - 1, Math.ceil(0.5 * f.length) - 1)],
                f[(int) Math.min(f.length - 1, Math.ceil(0.99 * f.length) - 1)],
                f[f.length - 1],
                Math.round(java.util.Arrays.stream(by).average().orElse(0)),
                by[(int) Math.min(by.length - 1, Math.ceil(0.5 * by.length) - 1)],
                by[(int) Math.min(by.length - 1, Math.ceil(0.99 * by.length) - 1)],
                by[by.length - 1],
                files,
                bytes);
    }

    /** The smallest power of two (in MiB, at least 1) at or above {@code bytes}. */
    static long mibBucket(long bytes) {
        long mib = 1;
        while (mib < (1L << 40) && (mib << 20) < bytes) {
            mib <<= 1;
        }
        return mib;
    }
}
