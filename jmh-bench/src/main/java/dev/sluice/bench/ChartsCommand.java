package dev.sluice.bench;

import dev.sluice.bench.report.Charts;
import dev.sluice.bench.runner.Results;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice charts results.json}: draws a finished run's charts again (e.g. after a chart was added). */
@Command(
        name = "charts",
        mixinStandardHelpOptions = true,
        description = "Redraw the PNG charts of a finished run from its results.json.")
public final class ChartsCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "A results.json written by 'sluice bench'.")
    Path results;

    @Option(names = "--out", description = "Where to write the PNGs (default: the directory of results.json).")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(results)) {
            System.err.println("sluice charts: no such file: " + results);
            return 2;
        }
        Results.Run run = Results.mapper().readValue(results.toFile(), Results.Run.class);
        Path dir = out != null ? out : results.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        List<String> written = Charts.write(dir, run.stacks());
        written.forEach(name -> System.out.println(dir.resolve(name)));
        return 0;
    }
}
