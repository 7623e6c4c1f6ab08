package dev.sluice.bench.report;

import dev.sluice.bench.runner.Results;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PNG charts of a run with XChart, in the papers' style (x = seconds since the phases began, one point per 1-s window):
 *
 * <ul>
 *   <li>{@code throughput.png} and {@code p99.png}: per-second throughput and p99 latency, one line per stack;
 *       {@code p99-write.png} and {@code p99-read.png}: the per-second p99 of writes and of reads (vLSM §6).
 *   <li>{@code chains-files.png}, {@code chains-bytes.png}: how many L0->L1 compactions had how many input files and
 *       how many input MiB ({@code metrics.compactionChains}), one line per stack.
 *   <li>{@code fig12-STACK.png}: CruiseDB Fig. 12 for one stack — throughput per second with the mean and the P99 tail
 *       throughput as horizontal lines, and p99 latency per second on the right axis.
 *   <li>{@code lsm-STACK.png}: L0 files (left) and memtable watermark in % (right) over time.
 *   <li>{@code admission-STACK.png}: CruiseDB Fig. 13 — memtable watermark in % (left) against the admission rate
 *       (right) over time; only for stacks whose partitions have an admission gate.
 *   <li>{@code pending-compaction.png}: pending compaction bytes (MiB), one line per stack.
 *   <li>{@code io-STACK.png}: I/O per class (MiB/s) over time.
 *   <li>{@code adoc-STACK.png}: ADOC's tuning trace (cf. ADOC Fig. 21) — background threads and, when it moved, the
 *       L0→L1 job's max_subcompactions (left) and batch size
 *       (write_buffer_size, MiB, right) over time, with a marker row per data overflow (L0O, RDO, MMO) at the windows
 *       whose snapshot shows it; only in runs where a stack runs the {@code adoc} controller, then for every stack.
 *   <li>{@code tenants-STACK.png}: every tenant's p99 latency per second (multi-tenant scenarios only).
 *   <li>{@code deferral-STACK.png}: each partition's compaction-deferral stage per second (stacks running {@code
 *       deferral} in multi-tenant scenarios).
 * </ul>
 *
 * Rendering needs fonts (headless AWT); a chart that cannot be drawn is logged and skipped, never fatal.
 */
public final class Charts {
    private static final Logger log = LoggerFactory.getLogger(Charts.class);
    private static final int W = 1100, H = 520;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)
    };

    private Charts() {}

    /** The charts written, and the names of those that could not be drawn. */
    private static final class Written extends ArrayList<String> {
        final List<String> failed = new ArrayList<>();
    }

    /** Writes every chart into {@code dir}; returns the file names written (a chart that fails is logged, skipped). */
    public static List<String> write(Path dir, List<Results.Stack> stacks) {
        return write(dir, stacks, new ArrayList<>());
    }

    /** As {@link #write(Path, List)}, adding the names of the charts that could not be drawn to {@code failed}. */
    public static List<String> write(Path dir, List<Results.Stack> stacks, List<String> failed) {
        System.setProperty("java.awt.headless", "true");
        Written out = new Written();
        try {
            draw(dir, stacks, out);
        } finally {
            failed.addAll(out.failed);
        }
        return out;
    }

    private static void draw(Path dir, List<Results.Stack> stacks, List<String> out) {
        save(
                dir,
                "throughput.png",
                out,
                () -> perStack(stacks, "Throughput per second", "ops/s", w -> (double) w.ops(), false));
        save(
                dir,
                "p99.png",
                out,
                () -> perStack(
                        stacks,
                        "p99 latency per second (all operations)",
                        "ms",
                        w -> w.p99Us() == null ? null : w.p99Us() / 1000.0,
                        true));
        if (stacks.stream().flatMap(s -> s.windows().stream()).anyMatch(w -> w.writeP99Us() != null)) {
            save(
                    dir,
                    "p99-write.png",
                    out,
                    () -> perStack(
                            stacks,
                            "Write p99 latency per second (vLSM §6)",
                            "ms",
                            w -> w.writeP99Us() == null ? null : w.writeP99Us() / 1000.0,
                            true));
        }
        if (stacks.stream().flatMap(s -> s.windows().stream()).anyMatch(w -> w.readP99Us() != null)) {
            save(
                    dir,
                    "p99-read.png",
                    out,
                    () -> perStack(
                            stacks,
                            "Read p99 latency per second",
                            "ms",
                            w -> w.readP99Us() == null ? null : w.readP99Us() / 1000.0,
                            true));
        }
        if (stacks.stream().anyMatch(s -> s.metrics().compactionChains() != null)) {
            save(
                    dir,
                    "chains-files.png",
                    out,
                    () -> histogram(
                            stacks,
                            "L0->L1 compactions by input files (vLSM §3 chain width)",
                            "input files (L0 + output level) per compaction",
                            c -> c.filesHistogram()));
            save(
                    dir,
                    "chains-bytes.png",
                    out,
                    () -> histogram(
                            stacks,
                            "L0->L1 compactions by input size",
                            "input MiB per compaction (power-of-two bucket, upper bound)",
                            c -> c.bytesHistogramMiB()));
        }
        for (Results.Stack s : stacks) {
            save(dir, "fig12-" + s.name() + ".png", out, () -> fig12(s));
        }
        for (Results.Stack s : stacks) {
            save(dir, "lsm-" + s.name() + ".png", out, () -> lsm(s));
        }
        for (Results.Stack s : stacks) {
            save(dir, "admission-" + s.name() + ".png", out, () -> admission(s));
        }
        save(
                dir,
                "pending-compaction.png",
                out,
                () -> perStack(
                        stacks,
                        "Pending compaction bytes",
                        "MiB",
                        w -> w.pendingCompactionBytes() == null ? null : w.pendingCompactionBytes() / 1048576.0,
                        false));
        for (Results.Stack s : stacks) {
            save(dir, "io-" + s.name() + ".png", out, () -> io(s));
        }
        if (Summary.adocRun(stacks)) {
            for (Results.Stack s : stacks) {
                save(dir, "adoc-" + s.name() + ".png", out, () -> adocTrace(s));
            }
        }
        for (Results.Stack s : stacks) {
            if (s.tenantWindowP99Us() != null) {
                save(dir, "tenants-" + s.name() + ".png", out, () -> TenantReport.p99Chart(s, PALETTE));
            }
            if (s.deferralStage() != null) {
                save(dir, "deferral-" + s.name() + ".png", out, () -> TenantReport.deferralChart(s, PALETTE));
            }
        }
    }

    private interface ChartMaker {
        XYChart make();
    }

    private static void save(Path dir, String name, List<String> out, ChartMaker maker) {
        try {
            XYChart c = maker.make();
            if (c == null) {
                return;
            }
            BitmapEncoder.saveBitmap(c, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
            out.add(name);
        } catch (IOException | RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
            log.warn("could not draw {}: {}", name, e.toString());
            if (out instanceof Written w) {
                w.failed.add(name);
            }
        }
    }

    private static XYChart base(String title, String yTitle) {
        XYChart c = new XYChartBuilder()
                .width(W)
                .height(H)
                .title(title)
                .xAxisTitle("time (s)")
                .yAxisTitle(yTitle)
                .build();
        c.getStyler().setMarkerSize(0);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setAntiAlias(true);
        c.getStyler().setXAxisMin(0.0);
        return c;
    }

    /** x and y of the windows where {@code f} is defined. */
    private static double[][] points(Results.Stack s, Function<Results.Window, Double> f, boolean positiveOnly) {
        List<double[]> pts = new ArrayList<>();
        for (Results.Window w : s.windows()) {
            Double v = f.apply(w);
            if (v != null && !v.isNaN() && (!positiveOnly || v > 0)) {
                pts.add(new double[] {w.second() + 1, v});
            }
        }
        double[] x = new double[pts.size()];
        double[] y = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            y[i] = pts.get(i)[1];
        }
        return new double[][] {x, y};
    }

    /**
     * x and y of every window, y null where {@code f} is not defined (a second without completions has no p99): XChart
     * leaves a gap there. With {@link #points} the line was drawn straight across a stall, which vanished from the
     * p99 chart, and a value alone between gaps was not drawn at all (a probe of the runner, 2026-11-29).
     */
    private static List<List<Double>> gapped(
            Results.Stack s, Function<Results.Window, Double> f, boolean positiveOnly) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (Results.Window w : s.windows()) {
            Double v = f.apply(w);
            x.add((double) w.second() + 1);
            y.add(v != null && !v.isNaN() && (!positiveOnly || v > 0) ? v : null);
        }
        return List.of(x, y);
    }

    private static boolean anyValue(List<Double> y) {
        return y.stream().anyMatch(java.util.Objects::nonNull);
    }

    private static XYChart perStack(
            List<Results.Stack> stacks, String title, String yTitle, Function<Results.Window, Double> f, boolean log) {
        XYChart c = base(title, yTitle);
        if (yTitle.equals("ops/s")) {
            c.getStyler().setYAxisDecimalPattern("#,##0"); // not 1.1E5 past 100,000
        }
        boolean any = false;
        double min = Double.MAX_VALUE, max = 0;
        for (int i = 0; i < stacks.size(); i++) {
            Results.Stack s = stacks.get(i);
            List<List<Double>> p = gapped(s, f, log);
            if (!anyValue(p.get(1))) {
                continue;
            }
            for (Double v : p.get(1)) {
                if (v != null) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
            XYSeries ser = c.addSeries(s.name() + (i == 0 ? " (baseline)" : ""), p.get(0), p.get(1));
            ser.setLineColor(PALETTE[i % PALETTE.length]);
            ser.setLineWidth(1.6f);
            any = true;
        }
        if (!any) {
            return null;
        }
        if (log && max / Math.max(min, 1e-9) > 50) {
            c.getStyler().setYAxisLogarithmic(true);
            c.setYAxisTitle(yTitle + ", log scale");
        } else {
            c.getStyler().setYAxisMin(0.0);
        }
        return c;
    }

    /** One line with markers per stack: bucket (x) → compactions (y), from {@code metrics.compactionChains}. */
    private static XYChart histogram(
            List<Results.Stack> stacks,
            String title,
            String xTitle,
            Function<Results.Chains, java.util.Map<String, Long>> buckets) {
        XYChart c = base(title, "compactions");
        c.setXAxisTitle(xTitle);
        c.getStyler().setMarkerSize(8);
        c.getStyler().setYAxisMin(0.0);
        boolean any = false;
        for (int i = 0; i < stacks.size(); i++) {
            Results.Chains ch = stacks.get(i).metrics().compactionChains();
            if (ch == null || buckets.apply(ch).isEmpty()) {
                continue;
            }
            List<java.util.Map.Entry<String, Long>> e =
                    new ArrayList<>(buckets.apply(ch).entrySet());
            e.sort(java.util.Comparator.comparingDouble(x -> Double.parseDouble(x.getKey())));
            double[] x =
                    e.stream().mapToDouble(v -> Double.parseDouble(v.getKey())).toArray();
            double[] y = e.stream().mapToDouble(v -> v.getValue()).toArray();
            XYSeries ser = c.addSeries(stacks.get(i).name() + " (" + ch.compactions() + ")", x, y);
            ser.setLineColor(PALETTE[i % PALETTE.length]);
            ser.setMarkerColor(PALETTE[i % PALETTE.length]);
            ser.setMarker(SeriesMarkers.CIRCLE);
            any = true;
        }
        return any ? c : null;
    }

    private static XYChart fig12(Results.Stack s) {
        double[][] th = points(s, w -> (double) w.ops(), false);
        if (th[0].length == 0) {
            return null;
        }
        XYChart c = base("Throughput and p99 latency per second — " + s.name() + " (cf. CruiseDB Fig. 12)", "ops/s");
        XYSeries t = c.addSeries("throughput (ops/s)", th[0], th[1]);
        t.setLineColor(PALETTE[0]);
        t.setLineWidth(1.6f);
        double first = th[0][0], last = th[0][th[0].length - 1];
        XYSeries mean = c.addSeries(
                String.format(
                        Locale.ROOT,
                        s.metrics().meanThroughput() < 100 ? "mean %,.1f ops/s" : "mean %,.0f ops/s",
                        s.metrics().meanThroughput()),
                new double[] {first, last},
                new double[] {s.metrics().meanThroughput(), s.metrics().meanThroughput()});
        mean.setLineColor(PALETTE[2]);
        mean.setLineStyle(new BasicStroke(2f));
        XYSeries tail = c.addSeries(
                String.format(
                        Locale.ROOT,
                        s.metrics().tailThroughputP99() < 100
                                ? "P99 tail throughput %,.1f ops/s"
                                : "P99 tail throughput %,.0f ops/s",
                        s.metrics().tailThroughputP99()),
                new double[] {first, last},
                new double[] {s.metrics().tailThroughputP99(), s.metrics().tailThroughputP99()});
        tail.setLineColor(PALETTE[3]);
        tail.setLineStyle(new BasicStroke(2f));
        List<List<Double>> p99 = gapped(s, w -> w.p99Us() == null ? null : w.p99Us() / 1000.0, false);
        if (anyValue(p99.get(1))) {
            XYSeries l = c.addSeries("p99 latency (ms, right axis)", p99.get(0), p99.get(1));
            l.setYAxisGroup(1);
            l.setLineColor(PALETTE[1]);
            l.setLineWidth(1.2f);
            c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            c.getStyler().setYAxisMin(1, 0.0);
            c.setYAxisGroupTitle(1, "p99 latency (ms)");
        }
        c.getStyler().setYAxisMin(0, 0.0);
        return c;
    }

    private static XYChart lsm(Results.Stack s) {
        double[][] l0 = points(s, w -> w.l0Files() == null ? null : (double) w.l0Files(), false);
        double[][] wm = points(s, w -> w.memtableWatermark() == null ? null : w.memtableWatermark() * 100, false);
        if (l0[0].length == 0 && wm[0].length == 0) {
            return null;
        }
        return dualAxis(
                "L0 files and memtable watermark — " + s.name(),
                "L0 files",
                "L0 files",
                l0,
                "memtable watermark (%)",
                "memtable watermark (% of budget, right axis)",
                wm);
    }

    /** CruiseDB Fig. 13 analogue; null (no file) when the stack had no admission gate. */
    private static XYChart admission(Results.Stack s) {
        double[][] rate = points(s, Results.Window::admissionRate, true);
        if (rate[0].length == 0) {
            return null;
        }
        double[][] wm = points(s, w -> w.memtableWatermark() == null ? null : w.memtableWatermark() * 100, false);
        XYChart c = dualAxis(
                "Watermark vs admission rate — " + s.name(),
                "watermark (% of the write-buffer budget)",
                "memtables (%)",
                wm,
                "admission rate (requests/s)",
                "admission rate (requests/s, right axis)",
                rate);
        // The SP-LSM reading (watermark.source = unmerged): memtables + L0 files no merge has taken, drawn when it
        // differs.
        double[][] unmerged = points(s, w -> w.unmergedWatermark() == null ? null : w.unmergedWatermark() * 100, false);
        if (unmerged[0].length > 0 && !Arrays.equals(unmerged[1], wm[1])) {
            XYSeries u = c.addSeries("memtables + waiting L0 (%)", unmerged[0], unmerged[1]);
            u.setLineColor(PALETTE[2]);
            u.setLineWidth(1.6f);
        }
        return c;
    }

    /** One series on the left axis and one on the right, both from 0; an empty series is left out. */
    private static XYChart dualAxis(
            String title,
            String leftAxis,
            String leftName,
            double[][] left,
            String rightAxis,
            String rightName,
            double[][] right) {
        XYChart c = base(title, leftAxis);
        if (left[0].length > 0) {
            XYSeries a = c.addSeries(leftName, left[0], left[1]);
            a.setLineColor(PALETTE[0]);
            a.setLineWidth(1.6f);
        }
        if (right[0].length > 0) {
            XYSeries b = c.addSeries(rightName, right[0], right[1]);
            b.setYAxisGroup(1);
            b.setLineColor(PALETTE[1]);
            b.setLineWidth(1.4f);
            c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            c.getStyler().setYAxisMin(1, 0.0);
            c.setYAxisGroupTitle(1, rightAxis);
        }
        c.getStyler().setYAxisMin(0, 0.0);
        return c;
    }

    /**
     * ADOC's tuning trace: threads as a step line (left axis), batch size in MiB (right axis), and one row of markers
     * per overflow kind above the threads line at the windows whose snapshot shows that overflow.
     */
    private static XYChart adocTrace(Results.Stack s) {
        double[][] threads =
                points(s, w -> w.tuning() == null ? null : (double) w.tuning().maxBackgroundJobs(), false);
        if (threads[0].length == 0) {
            return null;
        }
        double[][] batch = points(s, w -> w.tuning() == null ? null : w.tuning().writeBufferSize() / 1048576.0, false);
        double top = 0;
        for (double v : threads[1]) {
            top = Math.max(top, v);
        }
        XYChart c = base("ADOC tuning trace — " + s.name() + " (cf. ADOC Fig. 21)", "background threads");
        c.getStyler().setMarkerSize(7);
        XYSeries t = c.addSeries("max_background_jobs (threads)", threads[0], threads[1]);
        t.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
        t.setMarker(SeriesMarkers.NONE);
        t.setLineColor(PALETTE[0]);
        t.setLineWidth(1.8f);
        double[][] subs = points(
                s,
                w -> w.tuning() == null || w.tuning().maxSubcompactions() < 1
                        ? null
                        : (double) w.tuning().maxSubcompactions(),
                false);
        boolean subsMoved = false;
        for (double v : subs[1]) {
            subsMoved |= v != subs[1][0];
        }
        if (subsMoved) {
            XYSeries m = c.addSeries("max_subcompactions (threads of the L0->L1 job)", subs[0], subs[1]);
            m.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
            m.setMarker(SeriesMarkers.NONE);
            m.setLineColor(PALETTE[5]);
            m.setLineWidth(1.4f);
        }
        String[] kinds = {"L0O", "RDO", "MMO"};
        Color[] colors = {PALETTE[1], PALETTE[4], PALETTE[3]};
        for (int k = 0; k < kinds.length; k++) {
            String kind = kinds[k];
            double lane = top + 1 + 0.6 * (kinds.length - k);
            double[][] m =
                    points(s, w -> w.tuning() != null && w.tuning().overflows().contains(kind) ? lane : null, false);
            if (m[0].length == 0) {
                continue;
            }
            XYSeries ser = c.addSeries(kind + " seen (" + m[0].length + " windows)", m[0], m[1]);
            ser.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            ser.setMarker(SeriesMarkers.DIAMOND);
            ser.setMarkerColor(colors[k]);
        }
        c.getStyler().setYAxisMin(0, 0.0);
        c.getStyler().setYAxisMax(0, top + 1 + 0.6 * (kinds.length + 1));
        if (batch[0].length > 0) {
            XYSeries b = c.addSeries("write_buffer_size (MiB, right axis)", batch[0], batch[1]);
            b.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
            b.setMarker(SeriesMarkers.NONE);
            b.setYAxisGroup(1);
            b.setLineColor(PALETTE[2]);
            b.setLineWidth(1.6f);
            c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            c.getStyler().setYAxisMin(1, 0.0);
            c.setYAxisGroupTitle(1, "batch size (MiB)");
        }
        return c;
    }

    private static XYChart io(Results.Stack s) {
        if (s.windows().isEmpty() || s.windows().get(0).io().isEmpty()) {
            return null;
        }
        XYChart c = base("I/O per class — " + s.name(), "MiB/s");
        int i = 0;
        for (String cls : s.windows().get(0).io().keySet()) {
            double[][] p = points(
                    s,
                    w -> {
                        Results.Io io = w.io().get(cls);
                        return io == null || io.bytes() < 0 ? null : io.bytes() / 1048576.0;
                    },
                    false);
            double sum = 0;
            for (double v : p[1]) {
                sum += v;
            }
            if (p[0].length == 0 || sum <= 0) {
                continue;
            }
            XYSeries ser = c.addSeries(cls, p[0], p[1]);
            ser.setLineColor(PALETTE[i++ % PALETTE.length]);
            ser.setLineWidth(1.4f);
        }
        if (i == 0) {
            return null;
        }
        c.getStyler().setYAxisMin(0.0);
        return c;
    }
}
