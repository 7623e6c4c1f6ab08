package dev.sluice.bench;

import dev.sluice.bench.report.Charts;
import dev.sluice.bench.report.Summary;
import dev.sluice.bench.runner.BenchRun;
import dev.sluice.bench.runner.Results;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code sluice charts results.json}: draws a finished run's charts again (e.g. after a chart was added). */
@Command(
        name = "charts",
        mixinStandardHelpOptions = true,
        version = SluiceCli.VERSION,
        description =
                "Redraw the PNG charts of a finished run from its results.json (and, with --summary, its summary.md).",
        footer = {"", "Exit codes: 0 done; 1 drawing failed; 2 bad arguments or not a results.json."})
public final class ChartsCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @ParentCommand
    SluiceCli parent;

    @Parameters(index = "0", description = "A results.json written by 'sluice bench'.")
    Path results;

    @Option(names = "--out", description = "Where to write the PNGs (default: the directory of results.json).")
    Path out;

    @Option(
            names = "--summary",
            description = "Also write summary.md again from results.json (e.g. after a summary row was added).")
    boolean summary;

    @Override
    public Integer call() throws Exception {
        if (Files.isDirectory(results)) {
            throw bad(results + " is a directory; give the results.json in it");
        }
        if (!Files.isRegularFile(results)) {
            throw bad("no such file: " + results);
        }
        Results.Run run;
        try {
            run = Results.mapper().readValue(results.toFile(), Results.Run.class);
        } catch (IOException e) {
            String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                    ? j.getOriginalMessage()
                    : e.toString();
            throw bad(results + " is not a results.json written by 'sluice bench': " + why);
        }
        if (run == null || run.stacks() == null || run.stacks().isEmpty()) {
            throw bad(results + " is not a results.json written by 'sluice bench': it has no stacks");
        }
        String wrong = problem(run);
        if (wrong != null) {
            throw bad(results + " is not a results.json written by 'sluice bench': " + wrong);
        }
        Path dir = out != null ? out : results.toAbsolutePath().getParent();
        try {
            BenchRun.checkDirectory("--out", dir);
            Files.createDirectories(dir);
        } catch (IllegalArgumentException | IOException e) {
            throw bad(e instanceof IOException ? "--out " + dir + ": cannot create it: " + e : e.getMessage());
        }
        List<String> failed = new ArrayList<>();
        List<String> written = new ArrayList<>(Charts.write(dir, run.stacks(), failed));
        if (summary) {
            Files.writeString(dir.resolve("summary.md"), Summary.markdown(run), StandardCharsets.UTF_8);
            written.add("summary.md");
        }
        SluiceCli cli = SluiceCli.of(parent);
        written.forEach(name -> cli.out.println(dir.resolve(name)));
        if (!failed.isEmpty()) {
            cli.err.println(
                    "sluice charts: could not draw " + String.join(", ", failed) + " (see the log line above each)");
            return 1;
        }
        return 0;
    }

    /**
     * What a parsed results.json lacks that every chart needs (null when nothing): a schema this version reads, and per
     * stack a name usable in a file name, its windows, phases and metrics. Until 2026-11-26 a missing one surfaced as a
     * NullPointerException halfway through the charts.
     */
    static String problem(Results.Run run) {
        if (run.schemaVersion() < 1 || run.schemaVersion() > Results.SCHEMA_VERSION) {
            return "schemaVersion " + run.schemaVersion() + " (this sluice reads 1 to " + Results.SCHEMA_VERSION + ")";
        }

        for (int i = 0; i < run.stacks().size(); i++) {
            Results.Stack s = run.stacks().get(i);
            String which = "stack " + (i + 1);
            if (s == null) {
                return which + " is null";
            }
            if (s.name() == null || s.name().isBlank() || !s.name().matches("[A-Za-z0-9._-]+")) {
                return which + " has no usable name (letters, digits, '.', '_', '-'): " + s.name();
            }
            which = "stack '" + s.name() + "'";
            if (s.windows() == null || s.windows().isEmpty()) {
                return which + " has no windows";
            }
            if (s.windows().contains(null)) {
                return which + " has a null window";
            }
            if (s.phases() == null) {
                return which + " has no phases";
            }
            if (s.metrics() == null) {
                return which + " has no metrics";
            }
            if (s.phases().contains(null)) {
                return which + " has a null phase";
            }
            String missing = firstNull(
                    "controls",
                    s.controls(),
                    "options",
                    s.options(),
                    "sysprops",
                    s.sysprops(),
                    "environment",
                    s.environment(),
                    "preload",
                    s.preload(),
                    "metrics.latency",
                    s.metrics().latency(),
                    "ratioToBaseline",
                    s.ratioToBaseline(),
                    "controlEvents",
                    s.controlEvents());
            if (missing != null) {
                return which + " has no '" + missing + "'";
            }
        }
        // the objects results.schema.json requires and the charts and summary read (a hand-edited file without one
        // failed with a NullPointerException, some charts already written: a CLI probe, 2026-11-28)
        String missing = firstNull(
                "scenario", run.scenario(), "machine", run.machine(), "charts", run.charts(), "command", run.command());
        return missing == null ? null : "it has no '" + missing + "'";
    }

    /** The name of the first null value among (name, value) pairs; null when none is. */
    private static String firstNull(Object... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] == null) {
                return (String) namesAndValues[i];
            }
        }
        return null;
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
