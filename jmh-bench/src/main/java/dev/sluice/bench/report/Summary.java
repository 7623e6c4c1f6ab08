package dev.sluice.bench.report;

import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.runner.Results;
import dev.sluice.core.sensor.LevelInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns a run into the comparison table: one row per metric, one column per stack, every cell also as a ratio to the
 * baseline (the first stack). The same rows feed {@code ratioToBaseline} in results.json, summary.md and the console.
 */
public final class Summary {
    private Summary() {}

    /** One metric: how to read it from a stack, how to print it, and whether higher is better (for the doc). */
    record Row(String key, String label, Function<Results.Stack, Double> value, String format, double scale) {}

    static List<Row> rows(List<Results.Stack> stacks) {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row(
                "meanThroughput", "Mean throughput (ops/s)", s -> s.metrics().meanThroughput(), "%,.0f", 1));
        rows.add(new Row(
                "tailThroughputP99",
                "Tail throughput P99 (ops/s, CruiseDB Eq. 1)",
                s -> s.metrics().tailThroughputP99(),
                "%,.0f",
                1));
        rows.add(new Row(
                "tailThroughputP95",
                "Tail throughput P95 (ops/s)",
                s -> s.metrics().tailThroughputP95(),
                "%,.0f",
                1));
        rows.add(new Row(
                "tailToMeanP99",
                "Tail P99 / mean (1 = steady)",
                s -> s.metrics().meanThroughput() <= 0
                        ? null
                        : s.metrics().tailThroughputP99() / s.metrics().meanThroughput(),
                "%.2f",
                1));
        rows.add(new Row(
                "minWindowThroughput",
                "Slowest 1-s window (ops/s)",
                s -> s.metrics().minWindowThroughput(),
                "%,.0f",
                1));
        rows.add(new Row(
                "maxWindowP99Us",
                "Per-second p99: max (ms, CruiseDB Fig. 12)",
                s -> s.metrics().maxWindowP99Us() == null
                        ? null
                        : (double) s.metrics().maxWindowP99Us(),
                "%.2f",
                1e-3));
        rows.add(new Row(
                "meanWindowP99Us",
                "Per-second p99: mean (ms)",
                s -> s.metrics().meanWindowP99Us() == null
                        ? null
                        : (double) s.metrics().meanWindowP99Us(),
                "%.2f",
                1e-3));
        rows.add(new Row(
                "zeroThroughputWindows",
                "Stall seconds: windows with 0 completions",
                s -> (double) s.metrics().zeroThroughputWindows(),
                "%.0f",
                1));
        rows.add(new Row(
                "rocksdbStallSeconds",
                "Stall seconds: RocksDB stall time",
                s -> s.metrics().rocksdbStallSeconds(),
                "%.1f",
                1));
        for (String p : List.of("p50", "p99", "p999", "max")) {
            rows.add(new Row(
                    "latency.all." + p + "Us", label(p) + " latency, all ops (ms)", s -> lat(s, "all", p), MS, 1e-3));
        }
        List<String> kinds = new ArrayList<>();
        for (Results.Stack s : stacks) {
            for (String k : s.metrics().latency().keySet()) {
                if (!k.equals("all") && !kinds.contains(k)) {
                    kinds.add(k);
                }
            }
        }
        if (stacks.stream().anyMatch(s -> s.metrics().writeLatency() != null)) {
            for (String p : List.of("p50", "p99", "p999", "max")) {
                rows.add(new Row(
                        "writeLatency." + p + "Us",
                        label(p) + " latency, all writes (ms)",
                        s -> stat(s.metrics().writeLatency(), p),
                        MS,
                        1e-3));
            }
        }
        for (String k : kinds) {
            boolean full = k.equals("read"); // vLSM §6 reports p50 and max of reads too
            if (full) {
                rows.add(new Row(
                        "latency." + k + ".p50Us", "p50 latency, " + k + " (ms)", s -> lat(s, k, "p50"), MS, 1e-3));
            }
            rows.add(
                    new Row("latency." + k + ".p99Us", "p99 latency, " + k + " (ms)", s -> lat(s, k, "p99"), MS, 1e-3));
            rows.add(new Row(
                    "latency." + k + ".p999Us", "p99.9 latency, " + k + " (ms)", s -> lat(s, k, "p999"), MS, 1e-3));
            if (full) {
                rows.add(new Row(
                        "latency." + k + ".maxUs", "Max latency, " + k + " (ms)", s -> lat(s, k, "max"), MS, 1e-3));
            }
        }
        if (stacks.stream().anyMatch(s -> s.metrics().longestStallMs() != null)) {
            rows.add(new Row(
                    "longestStallMs",
                    "Longest interval without a completed write (ms)",
                    s -> s.metrics().longestStallMs() == null
                            ? null
                            : (double) s.metrics().longestStallMs(),
                    "%,.0f",
                    1));
        }
        if (stacks.stream().anyMatch(s -> s.metrics().compactionChains() != null)) {
            rows.add(new Row(
                    "compactionChains.compactions",
                    "L0->L1 compactions (memory->L1 chain steps)",
                    s -> chains(s, c -> (double) c.compactions()),
                    "%,.0f",
                    1));
            rows.add(new Row(
                    "compactionChains.p50Files",
                    "Files per L0->L1 compaction: p50",
                    s -> chains(s, c -> (double) c.p50Files()),
                    "%.0f",
                    1));
            rows.add(new Row(
                    "compactionChains.maxFiles",
                    "Files per L0->L1 compaction: max",
                    s -> chains(s, c -> (double) c.maxFiles()),
                    "%.0f",
                    1));
            rows.add(new Row(
                    "compactionChains.p50Bytes",
                    "Input per L0->L1 compaction: p50 (MiB)",
                    s -> chains(s, c -> (double) c.p50Bytes()),
                    "%,.1f",
                    1.0 / (1 << 20)));
            rows.add(new Row(
                    "compactionChains.maxBytes",
                    "Input per L0->L1 compaction: max (MiB)",
                    s -> chains(s, c -> (double) c.maxBytes()),
                    "%,.1f",
                    1.0 / (1 << 20)));
        }
        rows.add(new Row(
                "writeAmplification", "Write amplification", s -> s.metrics().writeAmplification(), "%.2f", 1));
        if (stacks.stream().anyMatch(s -> s.metrics().ioAmplification() != null)) {
            rows.add(new Row(
                    "ioAmplification",
                    "I/O amplification (engine read + written / user written)",
                    s -> s.metrics().ioAmplification(),
                    "%.2f",
                    1));
        }
        rows.add(new Row(
                "readAmplification",
                "Read amplification (Env bytes / user bytes)",
                s -> s.metrics().readAmplification(),
                "%.2f",
                1));
        if (stacks.stream()
                .anyMatch(s -> s.windows() != null
                        && s.windows().stream().anyMatch(w -> w.measured() && w.pendingCompactionBytes() != null))) {
            rows.add(new Row(
                    "pendingCompaction.midRun",
                    "Pending compaction, RocksDB's estimate: 2nd half's first tenth (GiB, mean)",
                    s -> windowMean(s, 0.5, 0.6, Summary::pendingBytes),
                    "%,.2f",
                    1.0 / (1 << 30)));
            rows.add(new Row(
                    "pendingCompaction.end",
                    "Pending compaction, RocksDB's estimate: last tenth (GiB, mean)",
                    s -> windowMean(s, 0.9, 1.0, Summary::pendingBytes),
                    "%,.2f",
                    1.0 / (1 << 30)));
        }
        if (stacks.stream()
                .anyMatch(s -> s.windows() != null
                        && s.windows().stream().anyMatch(w -> w.measured() && levelExcess(w) != null))) {
            rows.add(new Row(
                    "levelExcess.midRun",
                    "Levels over target (L1..L(n-1) bytes above target): 2nd half's first tenth (GiB, mean)",
                    s -> windowMean(s, 0.5, 0.6, Summary::levelExcess),
                    "%,.2f",
                    1.0 / (1 << 30)));
            rows.add(new Row(
                    "levelExcess.end",
                    "Levels over target (L1..L(n-1) bytes above target): last tenth (GiB, mean)",
                    s -> windowMean(s, 0.9, 1.0, Summary::levelExcess),
                    "%,.2f",
                    1.0 / (1 << 30)));
        }
        if (stacks.stream().anyMatch(s -> s.metrics().inputBytes() != null)) {
            rows.add(new Row(
                    "inputBytes",
                    "Input accepted (GiB of keys + values)",
                    s -> s.metrics().inputBytes() == null
                            ? null
                            : (double) s.metrics().inputBytes(),
                    "%,.2f",
                    1.0 / (1 << 30)));
        }
        if (stacks.stream().anyMatch(s -> s.metrics().cpuSeconds() != null)) {
            rows.add(new Row(
                    "cpuSeconds",
                    "CPU time (s, whole process: engine + clients)",
                    s -> s.metrics().cpuSeconds(),
                    "%,.1f",
                    1));
        }
        if (stacks.stream()
                .anyMatch(s ->
                        s.windows() != null && s.windows().stream().anyMatch(w -> w.measured() && steal(w) != null))) {
            // A slow second on a VM can be the hypervisor's: official run 23 of cruise-a-variant (docs/benchmarks.md)
            // had 40 s in which every I/O class slowed at once and no record that could say why.
            rows.add(new Row(
                    "cpu.steal",
                    "CPU steal (hypervisor): mean over the measured seconds (% of the machine)",
                    s -> windowMean(s, 0, 1, Summary::steal),
                    "%.1f",
                    100));
            rows.add(new Row(
                    "cpu.stealSlowest",
                    "CPU steal in the slowest 1 % of seconds (the P99 tail's): mean (% of the machine)",
                    s -> slowestMean(s, 0.01, Summary::steal),
                    "%.1f",
                    100));
        }
        if (stacks.stream()
                .anyMatch(s -> s.windows() != null
                        && s.windows().stream().anyMatch(w -> w.measured() && ioStalled(w) != null))) {
            // A second can also be slow because the machine's own disk, under the emulated device, stalled every task:
            // experiment 33 (docs/benchmarks.md) had single seconds at 1,500-2,300 ops/s with the CPU idle and no
            // steal.
            rows.add(new Row(
                    "cpu.ioStalled",
                    "Host I/O stall (every task with work waiting on I/O, PSI): mean over the measured seconds (% of the"
                            + " time)",
                    s -> windowMean(s, 0, 1, Summary::ioStalled),
                    "%.1f",
                    100));
            rows.add(new Row(
                    "cpu.ioStalledSlowest",
                    "Host I/O stall in the slowest 1 % of seconds (the P99 tail's): mean (% of the time)",
                    s -> slowestMean(s, 0.01, Summary::ioStalled),
                    "%.1f",
                    100));
        }
        rows.add(new Row(
                "peakRssBytes",
                "Peak RSS (MiB)",
                s -> s.metrics().peakRssBytes() < 0
                        ? null
                        : (double) s.metrics().peakRssBytes(),
                "%,.0f",
                1.0 / (1 << 20)));
        rows.add(new Row(
                "rejected", "Rejected by admission", s -> (double) s.metrics().rejected(), "%,.0f", 1));
        if (stacks.stream().anyMatch(s -> s.metrics().peakAdmissionQueued() != null)) {
            rows.add(new Row(
                    "peakAdmissionQueued",
                    "Peak admission queue (requests waiting)",
                    s -> s.metrics().peakAdmissionQueued() == null
                            ? null
                            : (double) s.metrics().peakAdmissionQueued(),
                    "%,.0f",
                    1));
        }
        rows.add(new Row("errors", "Failed requests", s -> (double) s.metrics().errors(), "%,.0f", 1));
        if (stacks.stream().flatMap(s -> s.phases().stream()).anyMatch(p -> p.generated() != null)) {
            rows.add(new Row(
                    "generated",
                    "Open loop: requests offered (arrivals)",
                    s -> (double) openLoopSum(s, Results.Phase::generated),
                    "%,.0f",
                    1));
            // Arrivals refused by the client (the backlog at max.backlog, or max.inflight requests in flight) never ran
            // and are in no latency: a stack that cannot keep up shows good latencies over the few it served unless
            // this row says how many it did not (a probe of the runner, 2026-11-29: 91 % dropped, p99 2.3 ms, and the
            // word "dropped" nowhere in summary.md or on the console).
            rows.add(new Row(
                    "dropped",
                    "Open loop: requests dropped (backlog full; never run, in no latency)",
                    s -> (double) openLoopSum(s, Results.Phase::dropped),
                    "%,.0f",
                    1));
            rows.add(new Row(
                    "unstartedAtEnd",
                    "Open loop: requests never started (backlog at phase ends)",
                    s -> (double) s.phases().stream()
                            .filter(Results.Phase::measured)
                            .mapToLong(p -> p.unstartedAtEnd() == null ? 0 : p.unstartedAtEnd())
                            .sum(),
                    "%,.0f",
                    1));
            rows.add(new Row(
                    "maxBacklog",
                    "Open loop: largest backlog",
                    s -> (double) s.phases().stream()
                            .mapToLong(p -> p.maxBacklog() == null ? 0 : p.maxBacklog())
                            .max()
                            .orElse(0),
                    "%,.0f",
                    1));
        }
        return rows;
    }

    /** The sum of an open-loop phase count over the measured phases (0 when no phase has it). */
    static long openLoopSum(Results.Stack s, Function<Results.Phase, Long> f) {
        return s.phases().stream()
                .filter(Results.Phase::measured)
                .map(f)
                .mapToLong(v -> v == null ? 0 : v)
                .sum();
    }

    /**
     * A line for the console and summary when a stack's open-loop phases did not run every arrival, else null: how many
     * were offered, dropped by the client and never started.
     */
    public static String openLoopShortfall(Results.Stack s) {
        long generated = openLoopSum(s, Results.Phase::generated);
        long dropped = openLoopSum(s, Results.Phase::dropped);
        long unstarted = openLoopSum(s, Results.Phase::unstartedAtEnd);
        if (generated == 0 || dropped + unstarted == 0) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "%s did not keep up with the open-loop load: of %,d requests offered, %,d (%.1f %%) were dropped"
                        + " (backlog full) and %,d never started; its latencies cover only the requests it ran",
                s.name(),
                generated,
                dropped,
                100.0 * dropped / generated,
                unstarted);
    }

    private static Double steal(Results.Window w) {
        return w.cpu() == null ? null : w.cpu().steal();
    }

    private static Double ioStalled(Results.Window w) {
        return w.cpu() == null ? null : w.cpu().ioStalled();
    }

    /**
     * The mean of {@code f} over the slowest {@code fraction} of the measured windows (at least one), by ops: where the
     * P99 tail throughput comes from. Null when no such window has a value.
     */
    static Double slowestMean(Results.Stack s, double fraction, Function<Results.Window, Double> f) {
        if (s.windows() == null) {
            return null;
        }
        List<Results.Window> slowest = s.windows().stream()
                .filter(Results.Window::measured)
                .sorted(java.util.Comparator.comparingLong(Results.Window::ops))
                .toList();
        int n = Math.max(1, (int) Math.ceil(slowest.size() * fraction));
        return mean(slowest.subList(0, Math.min(n, slowest.size())), f);
    }

    private static Double pendingBytes(Results.Window w) {
        return w.pendingCompactionBytes() == null
                ? null
                : w.pendingCompactionBytes().doubleValue();
    }

    /** {@link LevelInfo#excessBytes} of the window's levels (the deep-compaction debt); null without level sizes. */
    static Double levelExcess(Results.Window w) {
        List<Long> bytes = w.levelBytes(), targets = w.levelTargetBytes();
        if (bytes == null || targets == null || bytes.size() != targets.size()) {
            return null;
        }
        return (double) LevelInfo.excessBytes(bytes, targets);
    }

    /**
     * The mean of {@code f} over the measured windows from fraction {@code from} to {@code to} of them (in order), the
     * windows where it is known; null when none is.
     */
    static Double windowMean(Results.Stack s, double from, double to, Function<Results.Window, Double> f) {
        if (s.windows() == null) {
            return null;
        }
        List<Results.Window> measured =
                s.windows().stream().filter(Results.Window::measured).toList();
        int a = (int) Math.floor(measured.size() * from), b = (int) Math.ceil(measured.size() * to);
        return mean(measured.subList(Math.min(a, measured.size()), Math.min(b, measured.size())), f);
    }

    /** The mean of {@code f} over the windows where it is known; null when it is known for none. */
    private static Double mean(List<Results.Window> windows, Function<Results.Window, Double> f) {
        double sum = 0;
        int n = 0;
        for (Results.Window w : windows) {
            Double v = f.apply(w);
            if (v != null) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? null : sum / n;
    }

    private static Double chains(Results.Stack s, Function<Results.Chains, Double> f) {
        return s.metrics().compactionChains() == null
                ? null
                : f.apply(s.metrics().compactionChains());
    }

    private static String label(String p) {
        return switch (p) {
            case "p999" -> "p99.9";
            case "max" -> "Max";
            default -> p;
        };
    }

    private static Double lat(Results.Stack s, String kind, String p) {
        return stat(s.metrics().latency().get(kind), p);
    }

    private static Double stat(LatencyStats l, String p) {
        if (l == null || l.count() == 0) {
            return null;
        }
        return (double)
                switch (p) {
                    case "p50" -> l.p50Us();
                    case "p99" -> l.p99Us();
                    case "p999" -> l.p999Us();
                    default -> l.maxUs();
                };
    }

    /** The names of the stack of record, in order of preference: the recommended Sluice stack, else the CruiseDB one. */
    static final List<String> RECORD_STACKS = List.of("sluice", "cruisedb");

    /** The stack whose ratios the headline gives: the first of {@link #RECORD_STACKS} in the run; null if none. */
    static Results.Stack recordStack(List<Results.Stack> stacks) {
        for (String n : RECORD_STACKS) {
            for (Results.Stack s : stacks) {
                if (s.name().equals(n)) {
                    return s;
                }
            }
        }
        return null;
    }

    /**
     * The headline: the stack of record against the baseline (stock RocksDB) and against every other stack, as ratios of
     * P99 tail throughput (higher is better), p99 latency (lower is better) and mean throughput, measured in this run.
     * Empty when the run has no stack of record, or it is the baseline.
     */
    public static List<String> headline(List<Results.Stack> stacks) {
        Results.Stack rec = recordStack(stacks);
        if (rec == null || stacks.size() < 2 || rec == stacks.get(0) || rec.metrics() == null) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        for (Results.Stack other : stacks) {
            if (other == rec || other.metrics() == null) {
                continue;
            }
            String tail =
                    ratioText(rec.metrics().tailThroughputP99(), other.metrics().tailThroughputP99());
            String p99 = ratioText(lat(rec, "all", "p99"), lat(other, "all", "p99"));
            String mean =
                    ratioText(rec.metrics().meanThroughput(), other.metrics().meanThroughput());
            lines.add(String.format(
                    Locale.ROOT,
                    "%s vs %s%s: P99 tail throughput %s (%,.0f vs %,.0f ops/s), p99 latency %s, mean throughput %s",
                    rec.name(),
                    other.name(),
                    other == stacks.get(0) ? " (baseline)" : "",
                    tail,
                    rec.metrics().tailThroughputP99(),
                    other.metrics().tailThroughputP99(),
                    p99,
                    mean));
        }
        return lines;
    }

    private static String ratioText(Double v, Double base) {
        Double r = ratio(v, base);
        return r == null ? "n/a" : String.format(Locale.ROOT, "%.2f×", r);
    }

    /** Ratios of every metric to the baseline's; null where either value is missing or the baseline is 0. */
    public static List<Results.Stack> withRatios(List<Results.Stack> stacks) {
        List<Row> rows = rows(stacks);
        Results.Stack base = stacks.get(0);
        List<Results.Stack> out = new ArrayList<>();
        for (int i = 0; i < stacks.size(); i++) {
            Results.Stack s = stacks.get(i);
            Map<String, Double> ratios = new LinkedHashMap<>();
            for (Row r : rows) {
                ratios.put(r.key(), ratio(r.value().apply(s), r.value().apply(base)));
            }
            out.add(s.withBaseline(i == 0, ratios));
        }
        return out;
    }

    static Double ratio(Double v, Double base) {
        if (v == null || base == null || base == 0 || v.isNaN() || base.isNaN()) {
            return null;
        }
        return Math.round(v / base * 1000) / 1000.0;
    }

    /** A row's format for milliseconds: two decimals, three below 1 ms. */
    static final String MS = "ms";

    private static String cell(Row r, Results.Stack s, Results.Stack base, boolean withRatio) {
        Double v = r.value().apply(s);
        if (v == null) {
            return "n/a";
        }
        double x = v * r.scale();
        // latencies under a millisecond keep three decimals: "0.00" hid a 40-µs p50 (a probe of the runner)
        String text = String.format(Locale.ROOT, r.format().equals(MS) ? (x < 1 ? "%.3f" : "%.2f") : r.format(), x);
        if (withRatio) {
            Double ratio = ratio(v, r.value().apply(base));
            text += ratio == null ? " (–)" : String.format(Locale.ROOT, " (%.2f×)", ratio);
        }
        return text;
    }

    /** The comparison as a Markdown table (metric rows, stack columns; "(1.00×)" = ratio to the baseline). */
    public static String markdownTable(List<Results.Stack> stacks) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Metric |");
        for (Results.Stack s : stacks) {
            sb.append(' ')
                    .append(s.name())
                    .append(s == stacks.get(0) ? " (baseline)" : "")
                    .append(" |");
        }
        sb.append("\n|---|");
        sb.append("---:|".repeat(stacks.size()));
        sb.append('\n');
        for (Row r : rows(stacks)) {
            sb.append("| ").append(r.label()).append(" |");
            for (Results.Stack s : stacks) {
                sb.append(' ')
                        .append(cell(r, s, stacks.get(0), stacks.size() > 1))
                        .append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The same table, aligned for a terminal. */
    public static String consoleTable(List<Results.Stack> stacks) {
        List<Row> rows = rows(stacks);
        List<String[]> lines = new ArrayList<>();
        String[] head = new String[stacks.size() + 1];
        head[0] = "metric";
        for (int i = 0; i < stacks.size(); i++) {
            head[i + 1] = stacks.get(i).name() + (i == 0 ? " (baseline)" : "");
        }
        lines.add(head);
        for (Row r : rows) {
            String[] l = new String[stacks.size() + 1];
            l[0] = r.label();
            for (int i = 0; i < stacks.size(); i++) {
                l[i + 1] = cell(r, stacks.get(i), stacks.get(0), stacks.size() > 1);
            }
            lines.add(l);
        }
        int[] width = new int[head.length];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                width[i] = Math.max(width[i], l[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < lines.size(); n++) {
            String[] l = lines.get(n);
            for (int i = 0; i < l.length; i++) {
                if (i == 0) {
                    sb.append(String.format("%-" + width[i] + "s", l[i]));
                } else {
                    sb.append("  ").append(String.format("%" + width[i] + "s", l[i]));
                }
            }
            sb.append('\n');
            if (n == 0) {
                int total = 0;
                for (int w : width) {
                    total += w + 2;
                }
                sb.append("-".repeat(total - 2)).append('\n');
            }
        }
        return sb.toString();
    }

    /** Whether a stack of the run runs the {@code adoc} controller (then the ADOC table and charts are added). */
    public static boolean adocRun(List<Results.Stack> stacks) {
        return stacks.stream().anyMatch(s -> s.controls().contains("adoc"));
    }

    private static final List<String> OVERFLOWS = List.of("L0O", "RDO", "MMO");

    /**
     * ADOC's stall breakdown (cf. ADOC Fig. 13) over the measured windows: each window's RocksDB stall time and each
     * zero-throughput window is charged to the first overflow its snapshot shows in ADOC's handling order (L0O, RDO,
     * MMO). A window showing none that is stalled, or is the first after a stalled one, is charged to the overflow of
     * that stall (the one its first window showed, updated by any later window of the stall that shows one): RocksDB
     * adds a writer's stall time to STALL_MICROS when the stall ends, so a long stop's time lands in the window after it.
     * Otherwise "none". Plus how many windows showed each overflow and the range of the two knobs.
     */
    public static String overflowTable(List<Results.Stack> stacks) {
        StringBuilder sb = new StringBuilder();
        sb.append("Each measured window is charged to the first overflow its snapshot shows (L0O, RDO, MMO order;")
                .append(" one snapshot per window, so a short overflow between two snapshots is missed). A window")
                .append(" that shows none but is stalled, or follows a stalled one, is charged to that stall's")
                .append(" overflow: RocksDB adds a writer's stall time when the stall ends.\n\n");
        sb.append("| Stack | Windows with L0O / RDO / MMO | RocksDB stall s: L0O / RDO / MMO / none")
                .append(" | Zero-throughput s: L0O / RDO / MMO / none | Threads min–max | Batch MiB min–max |\n");
        sb.append("|---|---:|---:|---:|---:|---:|\n");
        for (Results.Stack s : stacks) {
            long[] seen = new long[3];
            double[] stall = new double[4];
            long[] zero = new long[4];
            int minJobs = Integer.MAX_VALUE, maxJobs = 0;
            long minBatch = Long.MAX_VALUE, maxBatch = 0;
            int carry = 3; // the cause of the stall in progress (3 = none seen)
            boolean prevStalled = false;
            for (Results.Window w : s.windows()) {
                if (!w.measured()) {
                    continue;
                }
                List<String> o = w.tuning() == null ? List.of() : w.tuning().overflows();
                int cause = 3;
                for (int k = 2; k >= 0; k--) {
                    if (o.contains(OVERFLOWS.get(k))) {
                        seen[k]++;
                        cause = k;
                    }
                }
                boolean stalled = w.stall() != null && !w.stall().equals("NORMAL");
                if (stalled && (!prevStalled || cause != 3)) {
                    carry = cause;
                }
                int charged = cause != 3 ? cause : stalled || prevStalled ? carry : 3;
                prevStalled = stalled;
                stall[charged] += w.stallMicros() == null ? 0 : w.stallMicros() / 1e6;
                if (w.ops() == 0) {
                    zero[charged]++;
                }
                if (w.tuning() != null) {
                    minJobs = Math.min(minJobs, w.tuning().maxBackgroundJobs());
                    maxJobs = Math.max(maxJobs, w.tuning().maxBackgroundJobs());
                    minBatch = Math.min(minBatch, w.tuning().writeBufferSize());
                    maxBatch = Math.max(maxBatch, w.tuning().writeBufferSize());
                }
            }
            sb.append("| ")
                    .append(s.name())
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%d / %d / %d", seen[0], seen[1], seen[2]))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT, "%.1f / %.1f / %.1f / %.1f", stall[0], stall[1], stall[2], stall[3]))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%d / %d / %d / %d", zero[0], zero[1], zero[2], zero[3]))
                    .append(" | ")
                    .append(maxJobs == 0 ? "–" : minJobs + "–" + maxJobs)
                    .append(" | ")
                    .append(maxBatch == 0 ? "–" : (minBatch >> 20) + "–" + (maxBatch >> 20))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /** Whether the run has a measured open-loop phase with an offered rate (then the open-loop table is added). */
    public static boolean openLoopRun(List<Results.Stack> stacks) {
        return stacks.stream()
                .flatMap(s -> s.phases().stream())
                .anyMatch(p -> p.measured() && p.offeredMeanRate() != null);
    }

    /** Seconds a recovery must hold: that many consecutive windows at the offered rate with p99 back. */
    static final int RECOVERY_HOLD = 3;

    /** Served within this fraction of the offered rate counts as keeping up. */
    static final double KEEP_UP = 0.9;

    /**
     * Per-second p99 at most this percentile of the pre-burst phase's per-second p99s counts as back (its usual range:
     * an open loop's per-second p99 swings several-fold from second to second with every flush, so a factor of the
     * median would call a stack that behaves exactly as before the burst unrecovered).
     */
    static final double P99_BACK_PERCENTILE = 90;

    /** Per open-loop phase of one stack: offered, served, refused, median per-second p99, and recovery after a burst. */
    record OpenPhase(
            String phase,
            double offered,
            double served,
            long refused,
            Long medianP99Us,
            Integer recoverySeconds,
            boolean afterBurst,
            int durationSeconds) {}

    static List<OpenPhase> openPhases(Results.Stack s) {
        List<OpenPhase> out = new ArrayList<>();
        List<Results.Phase> phases = s.phases();
        for (int i = 0; i < phases.size(); i++) {
            Results.Phase p = phases.get(i);
            if (!p.measured() || p.offeredMeanRate() == null) {
                continue;
            }
            List<Results.Window> ws = windowsOf(s, p);
            long ops = ws.stream().mapToLong(Results.Window::ops).sum();
            long refused = ws.stream().mapToLong(Results.Window::rejected).sum();
            double served = p.durationSeconds() > 0 ? (double) ops / p.durationSeconds() : 0;
            boolean afterBurst = i >= 2
                    && phases.get(i - 1).offeredMeanRate() != null
                    && phases.get(i - 2).offeredMeanRate() != null
                    && phases.get(i - 1).offeredMeanRate() >= 1.5 * p.offeredMeanRate()
                    && phases.get(i - 1).offeredMeanRate()
                            >= 1.5 * phases.get(i - 2).offeredMeanRate();
            Integer recovery = null;
            if (afterBurst) {
                Long before = p99Percentile(windowsOf(s, phases.get(i - 2)), P99_BACK_PERCENTILE);
                recovery = before == null ? null : recovery(ws, p.offeredMeanRate(), before);
            }
            out.add(new OpenPhase(
                    p.name(),
                    p.offeredMeanRate(),
                    served,
                    refused,
                    medianP99(ws),
                    recovery,
                    afterBurst,
                    p.durationSeconds()));
        }
        return out;
    }

    private static List<Results.Window> windowsOf(Results.Stack s, Results.Phase p) {
        List<Results.Window> ws = new ArrayList<>();
        for (Results.Window w : s.windows()) {
            if (p.name().equals(w.phase())) {
                ws.add(w);
            }
        }
        return ws;
    }

    static Long medianP99(List<Results.Window> ws) {
        return p99Percentile(ws, 50);
    }

    /** The given percentile (nearest rank, upper) of the windows' per-second p99s; null when none has one. */
    static Long p99Percentile(List<Results.Window> ws, double percentile) {
        List<Long> v = new ArrayList<>();
        for (Results.Window w : ws) {
            if (w.p99Us() != null) {
                v.add(w.p99Us());
            }
        }
        if (v.isEmpty()) {
            return null;
        }
        v.sort(null);
        return v.get(Math.min(v.size() - 1, (int) Math.floor(v.size() * percentile / 100)));
    }

    /**
     * Seconds from the phase's start to the first window that begins {@link #RECOVERY_HOLD} consecutive windows (fewer
     * at the phase's end) each serving at least {@link #KEEP_UP} of the offered rate with a per-second p99 at most
     * {@code p99Before} (the pre-burst phase's {@link #P99_BACK_PERCENTILE}th percentile); null when none does.
     */
    static Integer recovery(List<Results.Window> ws, double offered, long p99Before) {
        for (int i = 0; i < ws.size(); i++) {
            boolean ok = true;
            for (int j = i; j < Math.min(ws.size(), i + RECOVERY_HOLD); j++) {
                Results.Window w = ws.get(j);
                if (w.ops() < KEEP_UP * offered || w.p99Us() == null || w.p99Us() > p99Before) {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                return i;
            }
        }
        return null;
    }

    /** The open-loop table of summary.md: does each stack keep up with the offered rate, and how fast it recovers. */
    public static String openLoopTable(List<Results.Stack> stacks) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "Served = completions in the phase's windows / its seconds. Recovery (phases after a burst: a phase"
                        + " offered ≥ 1.5× the ones before and after it) = seconds from the phase's start until %d"
                        + " consecutive seconds each serve ≥ %.0f %% of the offered rate with a per-second p99 within the"
                        + " range of the phase before the burst (≤ its %.0fth-percentile per-second p99).%n%n",
                RECOVERY_HOLD,
                100 * KEEP_UP,
                P99_BACK_PERCENTILE));
        sb.append("| Stack | Phase | Offered req/s | Served ops/s | Served / offered | Refused | Median per-s p99 ms")
                .append(" | Recovery after the burst |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (Results.Stack s : stacks) {
            for (OpenPhase p : openPhases(s)) {
                sb.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %,.0f | %,.0f | %.2f | %,d | %s | %s |%n",
                        s.name(),
                        p.phase(),
                        p.offered(),
                        p.served(),
                        p.offered() > 0 ? p.served() / p.offered() : 0,
                        p.refused(),
                        p.medianP99Us() == null ? "n/a" : String.format(Locale.ROOT, "%.2f", p.medianP99Us() / 1e3),
                        !p.afterBurst()
                                ? "–"
                                : p.recoverySeconds() == null
                                        ? "not within " + p.durationSeconds() + " s"
                                        : p.recoverySeconds() + " s"));
            }
        }
        return sb.toString();
    }

    /** summary.md: what ran, the table, and the charts. */
    public static String markdown(Results.Run run) {
        StringBuilder sb = new StringBuilder();
        Results.ScenarioInfo sc = run.scenario();
        sb.append("# Sluice bench: ").append(sc.name()).append("\n\n");
        List<String> head = headline(run.stacks());
        if (!head.isEmpty()) {
            sb.append("**Headline (this run):**\n\n");
            for (String h : head) {
                sb.append("- ").append(h).append('\n');
            }
            sb.append('\n');
        }
        if (run.failedStacks() != null) {
            for (Results.FailedStack f : run.failedStacks()) {
                sb.append("**Warning:** stack ")
                        .append(f.name())
                        .append(" has no results: ")
                        .append(f.error().lines().findFirst().orElse(""))
                        .append("\n\n");
            }
        }
        for (Results.Stack st : run.stacks()) {
            String shortfall = openLoopShortfall(st);
            if (shortfall != null) {
                sb.append("**Warning:** ").append(shortfall).append(".\n\n");
            }
        }
        if (!sc.description().isBlank()) {
            sb.append(sc.description()).append("\n\n");
        }
        sb.append("- Command: `").append(run.command()).append("`\n");
        sb.append("- Started: ").append(run.startedAt()).append('\n');
        sb.append("- Machine: ")
                .append(run.machine().cores())
                .append(" cores, ")
                .append(run.machine().memoryBytes() >> 30)
                .append(" GiB, ")
                .append(run.machine().cpu())
                .append(", ")
                .append(run.machine().os())
                .append(", JVM ")
                .append(run.machine().jvm())
                .append('\n');
        sb.append("- Scenario: ")
                .append(sc.source())
                .append(", ")
                .append(sc.durationSeconds())
                .append(" s of phases per stack, preload ")
                .append(String.format(Locale.ROOT, "%,d", sc.preloadKeys()))
                .append(" keys (")
                .append(sc.keyBytes())
                .append(" B keys, ")
                .append(sc.valueBytes())
                .append(" B values)\n");
        Results.Stack first = run.stacks().get(0);
        Results.Environment env = first.environment();
        sb.append("- Device model: ");
        if (sc.device().isEmpty()) {
            sb.append("none (the machine's own disk)\n");
        } else if (env.deviceEmulated()) {
            sb.append("emulated ").append(sc.device()).append('\n');
        } else {
            sb.append("**NOT in effect** — ")
                    .append(env.note().isBlank() ? "priority Env not active" : env.note())
                    .append(" (asked for ")
                    .append(sc.device())
                    .append(")\n");
        }
        sb.append("- Peak RSS: ")
                .append(
                        env.rssMode().equals("child-jvm")
                                ? "each stack ran in its own JVM; VmHWM of that JVM"
                                : "stacks shared one JVM; highest VmRSS sampled during the stack")
                .append('\n');
        sb.append("- Metrics cover the measured phases; \"(r×)\" is the ratio to the baseline ")
                .append(run.baseline())
                .append(".\n\n");
        sb.append(
                "## Phases\n\n| Stack | Phase | Mode | Seconds | Threads | Load | Mix | Keys |\n|---|---|---|---:|---:|---|---|---|\n");
        List<Results.Phase> basePhases =
                run.stacks().isEmpty() ? List.of() : run.stacks().get(0).phases();
        for (Results.Stack s : run.stacks()) {
            for (int pi = 0; pi < s.phases().size(); pi++) {
                Results.Phase p = s.phases().get(pi);
                if (s != run.stacks().get(0)
                        && pi < basePhases.size()
                        && java.util.Objects.equals(
                                p.shape(), basePhases.get(pi).shape())) {
                    // the same load as the baseline's; a load resolved per stack (shape = capacity: a share of the
                    // stack's own capacity) differs and gets its row (a probe, 2026-11-29: only the baseline's offered
                    // rate was shown, 44,984/s, where the other stack was offered 709/s)
                    continue;
                }
                sb.append("| ")
                        .append(s.name())
                        .append(" | ")
                        .append(p.name())
                        .append(p.measured() ? "" : " (warm-up)")
                        .append(" | ")
                        .append(p.mode())
                        .append("async".equals(p.dispatch()) ? " (async dispatch)" : "")
                        .append(" | ")
                        .append(p.durationSeconds())
                        .append(" | ")
                        .append(p.threads() == null ? "–" : p.threads())
                        .append(" | ")
                        .append(p.shape() == null ? "as fast as possible" : p.shape())
                        .append(" | ")
                        .append(p.mix())
                        .append(" | ")
                        .append(p.distribution())
                        .append(" |\n");
            }
        }
        sb.append("\n## Results\n\n").append(markdownTable(run.stacks())).append('\n');
        if (openLoopRun(run.stacks())) {
            sb.append("## Open loop: offered vs served, recovery after a burst\n\n")
                    .append(openLoopTable(run.stacks()))
                    .append('\n');
        }
        if (adocRun(run.stacks())) {
            sb.append("## Stalls by data overflow (ADOC §4)\n\n")
                    .append(overflowTable(run.stacks()))
                    .append('\n');
        }
        if (TenantReport.any(run.stacks())) {
            sb.append(TenantReport.markdown(run.stacks()));
        }
        sb.append("## Stacks\n\n");
        for (Results.Stack s : run.stacks()) {
            sb.append("- **")
                    .append(s.name())
                    .append("**: profile `")
                    .append(s.profile())
                    .append("`, controls ")
                    .append(s.controls().isEmpty() ? "none" : s.controls().toString());
            if (!s.sysprops().isEmpty()) {
                sb.append(", system properties ").append(s.sysprops());
            }
            if (!s.description().isBlank()) {
                sb.append(" — ").append(s.description().replaceAll("\\.\\s*$", ""));
            }
            sb.append(String.format(
                    Locale.ROOT,
                    "; preload %.1f s, settled %s after %.1f s; wall %.1f s%n",
                    s.preload().seconds(),
                    s.preload().settled() ? "yes" : "NO",
                    s.preload().settleSeconds(),
                    s.wallSeconds()));
        }
        if (!run.charts().isEmpty()) {
            sb.append("\n## Charts\n\n");
            for (String c : run.charts()) {
                sb.append("![").append(c).append("](").append(c).append(")\n");
            }
        }
        return sb.toString();
    }
}
