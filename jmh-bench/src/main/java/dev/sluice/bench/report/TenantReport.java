package dev.sluice.bench.report;

import dev.sluice.bench.runner.Results;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * The multi-tenant part of a report (scenarios with {@code [tenants]}, e.g. flex-noisy-neighbour): a table per stack of
 * every tenant in every phase, the bar (each well-behaved tenant's p99 in phase {@code noisy} over its own p99 in
 * phase {@code calm}, and what the noisy tenant was served against its quota), and a chart per stack of every tenant's
 * p99 per second.
 */
public final class TenantReport {
    private TenantReport() {}

    /** The phase in which the noisy tenant misbehaves, and the calm phase it is compared with (issue 17's names). */
    static final String CALM = "calm", NOISY = "noisy";

    public static boolean any(List<Results.Stack> stacks) {
        return stacks.stream().anyMatch(s -> s.tenants() != null && !s.tenants().isEmpty());
    }

    /** The Markdown section: per stack, one row per tenant and phase, then the bar. */
    public static String markdown(List<Results.Stack> stacks) {
        StringBuilder sb = new StringBuilder("## Tenants\n\n");
        sb.append(
                        "Latency from each request's intended start (quota and admission waits count). Offered and served are")
                .append(
                        " requests/s; served RCU/WCU are the units the partition's quota meter charged per second.\n\n");
        for (Results.Stack s : stacks) {
            if (s.tenants() == null) {
                continue;
            }
            sb.append("### ").append(s.name()).append("\n\n");
            sb.append("| tenant | phase | offered/s | served/s | served RCU/s | served WCU/s | p50 ms | p99 ms |")
                    .append(" p99.9 ms | throttled | refused |\n")
                    .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Results.Tenant t : s.tenants()) {
                sb.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %,.1f | %,.1f | %,.1f | %,.1f | %.2f | %.2f | %.2f | %,d | %,d |%n",
                        t.name(),
                        t.phase(),
                        t.offeredPerSec(),
                        t.servedPerSec(),
                        t.servedRcuPerSec(),
                        t.servedWcuPerSec(),
                        t.latency().p50Us() / 1000.0,
                        t.latency().p99Us() / 1000.0,
                        t.latency().p999Us() / 1000.0,
                        t.throttled(),
                        t.refused()));
            }
            sb.append('\n').append(bar(s)).append('\n');
        }
        sb.append(normallyServed(stacks));
        sb.append(readAmplification(stacks));
        return sb.toString();
    }

    /**
     * Per phase (rows) and stack (columns): the structural read amplification ({@code LsmSnapshot.sortedRuns}: L0
     * files + non-empty deeper levels, the sorted runs a point read probes at most) averaged over the tenants' seconds,
     * and, for stacks running the deferral controller, the same over the seconds a tenant was deferred (stage 1 or 2)
     * with the number of such tenant-seconds. Empty when no stack recorded it.
     */
    static String readAmplification(List<Results.Stack> stacks) {
        List<Results.Stack> with = withTenants(stacks, t -> t.sortedRunsMean() != null);
        if (with.isEmpty()) {
            return "";
        }
        List<String> phases = phasesOf(with.get(0));
        StringBuilder sb = new StringBuilder("### Read amplification (sorted runs a point read probes)\n\n");
        sb.append("Per phase: L0 files + non-empty deeper levels, averaged over every tenant's seconds; \"while")
                .append(
                        " deferred\": averaged over the tenant-seconds in which the deferral controller held the tenant in")
                .append(" stage 1 or 2 (their number in brackets).\n\n| phase |");
        for (Results.Stack s : with) {
            sb.append(' ').append(s.name()).append(" |");
            if (s.deferralStage() != null) {
                sb.append(' ').append(s.name()).append(" while deferred |");
            }
        }
        sb.append("\n|---|");
        for (Results.Stack s : with) {
            sb.append(s.deferralStage() != null ? "---:|---:|" : "---:|");
        }
        sb.append('\n');
        for (String ph : phases) {
            sb.append("| ").append(ph).append(" |");
            for (Results.Stack s : with) {
                double sum = 0, dsum = 0;
                long n = 0, dn = 0;
                for (Results.Tenant t : s.tenants()) {
                    if (!t.phase().equals(ph) || t.sortedRunsMean() == null) {
                        continue;
                    }
                    sum += t.sortedRunsMean();
                    n++;
                    if (t.sortedRunsDeferredMean() != null) {
                        dsum += t.sortedRunsDeferredMean() * t.deferredSeconds();
                        dn += t.deferredSeconds();
                    }
                }
                sb.append(n == 0 ? " – |" : String.format(Locale.ROOT, " %.2f |", sum / n));
                if (s.deferralStage() != null) {
                    sb.append(dn == 0 ? " – (0) |" : String.format(Locale.ROOT, " %.2f (%,d) |", dsum / dn, dn));
                }
            }
            sb.append('\n');
        }
        return sb.append('\n').toString();
    }

    /**
     * With a tenant SLO ({@code [tenants] slo.ms}): per phase (rows) and stack (columns) the share of requests served
     * normally over all tenants (weighted by what each offered) and the highest tenant p99; then the over-subscription
     * bar when the stacks {@code flexengine} and {@code rocksdb} and the phase {@code bosr-3} exist. Empty otherwise.
     */
    static String normallyServed(List<Results.Stack> stacks) {
        List<Results.Stack> with = withTenants(stacks, t -> t.normallyServedFraction() != null);
        if (with.isEmpty()) {
            return "";
        }
        List<String> phases = phasesOf(with.get(0));
        StringBuilder sb = new StringBuilder("### Normally served\n\n");
        sb.append("Share of requests completed within the tenant SLO, not throttled and not refused (all tenants,")
                .append(" weighted by offered load; a lower bound, see docs/results-schema.md), and the highest")
                .append(" tenant p99.\n\n| phase |");
        for (Results.Stack s : with) {
            sb.append(' ')
                    .append(s.name())
                    .append(" normal % | ")
                    .append(s.name())
                    .append(" p99 ms |");
        }
        sb.append("\n|---|").append("---:|---:|".repeat(with.size())).append('\n');
        for (String ph : phases) {
            sb.append("| ").append(ph).append(" |");
            for (Results.Stack s : with) {
                double[] f = phaseNormal(s, ph);
                sb.append(String.format(Locale.ROOT, " %.2f | %.2f |", f[0] * 100, f[1] / 1000));
            }
            sb.append('\n');
        }
        Results.Stack flex = with.stream()
                .filter(s -> s.name().equals("flexengine"))
                .findFirst()
                .orElse(null);
        Results.Stack stock = with.stream()
                .filter(s -> s.name().equals("rocksdb"))
                .findFirst()
                .orElse(null);
        if (flex != null && stock != null && phases.contains("bosr-3")) {
            double[] f = phaseNormal(flex, "bosr-3"), r = phaseNormal(stock, "bosr-3");
            double ratio = r[1] <= 0 ? Double.NaN : f[1] / r[1];
            boolean holds = f[0] >= 0.99 && ratio <= 0.1;
            sb.append(String.format(
                    Locale.ROOT,
                    "%nBar (bosr-3: flexengine serves ≥ 99 %% normally and its p99 ≤ 0.1× rocksdb's): %.2f %%, p99"
                            + " %.3f× — %s.%n",
                    f[0] * 100,
                    ratio,
                    holds ? "holds" : "misses"));
        }
        return sb.append('\n').toString();
    }

    /** The stacks with at least one tenant entry that {@code has}. */
    private static List<Results.Stack> withTenants(List<Results.Stack> stacks, Predicate<Results.Tenant> has) {
        return stacks.stream()
                .filter(s -> s.tenants() != null && s.tenants().stream().anyMatch(has))
                .toList();
    }

    /** The phases of a stack's tenant entries, in order of first appearance. */
    private static List<String> phasesOf(Results.Stack s) {
        List<String> phases = new ArrayList<>();
        for (Results.Tenant t : s.tenants()) {
            if (!phases.contains(t.phase())) {
                phases.add(t.phase());
            }
        }
        return phases;
    }

    /** {normally served fraction weighted by offered load, highest tenant p99 in µs} of one phase. */
    private static double[] phaseNormal(Results.Stack s, String phase) {
        double num = 0, den = 0, p99 = 0;
        for (Results.Tenant t : s.tenants()) {
            if (!t.phase().equals(phase)) {
                continue;
            }
            if (t.normallyServedFraction() != null) {
                num += t.normallyServedFraction() * t.offeredPerSec();
                den += t.offeredPerSec();
            }
            p99 = Math.max(p99, t.latency().p99Us());
        }
        return new double[] {den <= 0 ? 0 : num / den, p99};
    }

    /**
     * The bar of one stack: each well-behaved tenant's p99 in {@code noisy} ÷ its p99 in {@code calm} (the issue asks
     * ≤ 1.2), and the noisy tenant's served units against its quota (the stack's {@code partition.<name>.rcu/.wcu}).
     */
    static String bar(Results.Stack s) {
        Results.Tenant loudest = null;
        for (Results.Tenant t : s.tenants()) {
            if (t.phase().equals(NOISY) && (loudest == null || t.offeredPerSec() > loudest.offeredPerSec())) {
                loudest = t;
            }
        }
        if (loudest == null) {
            return "(no phase named '" + NOISY + "': no bar)\n";
        }
        StringBuilder sb = new StringBuilder("Bar (p99 in '" + NOISY + "' ÷ p99 in '" + CALM + "', ≤ 1.2 to pass): ");
        List<String> parts = new ArrayList<>();
        double worst = 0;
        for (Results.Tenant t : s.tenants()) {
            if (!t.phase().equals(NOISY) || t.name().equals(loudest.name())) {
                continue;
            }
            Results.Tenant calm = find(s, t.name(), CALM);
            if (calm == null || calm.latency().p99Us() == 0) {
                continue;
            }
            double r = (double) t.latency().p99Us() / calm.latency().p99Us();
            worst = Math.max(worst, r);
            parts.add(String.format(Locale.ROOT, "%s %.2f×", t.name(), r));
        }
        sb.append(String.join(", ", parts))
                .append(String.format(Locale.ROOT, " — worst %.2f× (%s)", worst, worst <= 1.2 ? "holds" : "misses"));
        Map<String, String> o = s.options();
        String rcu = o.get("partition." + loudest.name() + ".rcu"), wcu = o.get("partition." + loudest.name() + ".wcu");
        sb.append(String.format(
                Locale.ROOT,
                ". Noisy tenant '%s' offered %,.0f/s, served %,.1f RCU/s and %,.1f WCU/s (quota: %s RCU/s, %s WCU/s)",
                loudest.name(),
                loudest.offeredPerSec(),
                loudest.servedRcuPerSec(),
                loudest.servedWcuPerSec(),
                rcu == null ? "none" : rcu,
                wcu == null ? "none" : wcu));
        return sb.append(".\n").toString();
    }

    private static Results.Tenant find(Results.Stack s, String tenant, String phase) {
        for (Results.Tenant t : s.tenants()) {
            if (t.name().equals(tenant) && t.phase().equals(phase)) {
                return t;
            }
        }
        return null;
    }

    /** Every tenant's p99 per second (ms, log scale), one line each; null when the stack has no tenants. */
    static XYChart p99Chart(Results.Stack s, Color[] palette) {
        if (s.tenantWindowP99Us() == null || s.tenantWindowP99Us().isEmpty()) {
            return null;
        }
        XYChart c = new XYChartBuilder()
                .width(1100)
                .height(520)
                .title("p99 latency per second, per tenant — " + s.name())
                .xAxisTitle("time (s)")
                .yAxisTitle("ms")
                .build();
        c.getStyler().setMarkerSize(0);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setXAxisMin(0.0);
        int i = 0, drawn = 0;
        for (Map.Entry<String, List<Long>> e : s.tenantWindowP99Us().entrySet()) {
            List<Double> xs = new ArrayList<>(), ys = new ArrayList<>();
            List<Long> v = e.getValue();
            for (int sec = 0; sec < v.size(); sec++) {
                if (v.get(sec) != null && v.get(sec) > 0) {
                    xs.add((double) sec);
                    ys.add(v.get(sec) / 1000.0);
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries ser = c.addSeries(e.getKey(), xs, ys);
            ser.setLineColor(palette[i++ % palette.length]);
            ser.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            drawn++;
        }
        return drawn == 0 ? null : c;
    }

    /**
     * Each partition's compaction-deferral stage per second (0 normal, 1 deep compactions suspended, 2 intra-L0 only),
     * one step line per partition, offset by a small amount per partition so overlapping lines stay visible; null when
     * the stack did not run the deferral controller.
     */
    static XYChart deferralChart(Results.Stack s, Color[] palette) {
        if (s.deferralStage() == null || s.deferralStage().isEmpty()) {
            return null;
        }
        XYChart c = new XYChartBuilder()
                .width(1100)
                .height(420)
                .title("compaction deferral stage per partition — " + s.name())
                .xAxisTitle("time (s)")
                .yAxisTitle("stage")
                .build();
        c.getStyler().setMarkerSize(0);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setXAxisMin(0.0);
        c.getStyler().setYAxisMin(-0.2);
        c.getStyler().setYAxisMax(2.4);
        int n = s.deferralStage().size(), i = 0;
        for (Map.Entry<String, List<Integer>> e : s.deferralStage().entrySet()) {
            List<Integer> v = e.getValue();
            if (v.isEmpty()) {
                continue;
            }
            double offset = n <= 1 ? 0 : 0.15 * i / (n - 1);
            List<Double> xs = new ArrayList<>(), ys = new ArrayList<>();
            for (int sec = 0; sec < v.size(); sec++) {
                xs.add((double) sec);
                ys.add(v.get(sec) + offset);
                xs.add(sec + 1.0);
                ys.add(v.get(sec) + offset);
            }
            XYSeries ser = c.addSeries(e.getKey(), xs, ys);
            ser.setLineColor(palette[i++ % palette.length]);
            ser.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        }
        return i == 0 ? null : c;
    }
}
