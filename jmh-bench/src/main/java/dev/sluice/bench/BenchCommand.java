package dev.sluice.bench;

import dev.sluice.bench.runner.BenchRun;
import dev.sluice.bench.scenario.ScenarioException;
import dev.sluice.bench.scenario.Scenarios;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code sluice bench}: runs a scenario against every stack it lists and writes results.json, summary.md, charts. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        version = SluiceCli.VERSION,
        sortOptions = false,
        description = {
            "Runs an SLA benchmark scenario: every stack it lists (the first is the baseline) on a fresh data directory,"
                    + " the same preload, the same phases and the same device model, one after another.",
            "",
            "Writes to the output directory: results.json (schema: docs/results-schema.md), summary.md (one table, every"
                    + " metric also as a ratio to the baseline), PNG charts (throughput and p99 per second, L0 files and"
                    + " memtable watermark, pending compaction, I/O per class) and one log per stack under logs/.",
            "",
            "Metrics: mean throughput; tail throughput P99/P95 (CruiseDB Eq. 1 over 1-s windows); p50/p99/p99.9/max"
                    + " latency per operation kind (open loop: from the intended start, no coordinated omission); stall"
                    + " seconds (windows with zero completions, and RocksDB's stall time); write/read amplification; peak"
                    + " RSS; per-second time series.",
            ""
        },
        footer = {
            "",
            "Examples:",
            "  sluice bench --scenario quick",
            "  sluice bench --scenario cruise-a-variant --duration 120 --stacks rocksdb,rocksdb-autotuned",
            "  sluice bench --scenario ./my.scenario --out /tmp/run1",
            "",
            "Exit codes: 0 done; 1 a stack failed (see its log); 2 bad arguments, scenario file or configuration value"
                    + " (one line on stderr; checked for every stack before anything runs or is written)."
        })
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @ParentCommand
    SluiceCli parent;

    @Option(
            names = {"-s", "--scenario"},
            required = true,
            paramLabel = "NAME|PATH",
            description = "A shipped scenario (${COMPLETION-CANDIDATES}) or the path of a scenario file.",
            completionCandidates = ShippedScenarios.class)
    String scenario;

    @Option(
            names = {"-o", "--out"},
            paramLabel = "DIR",
            description = "Output directory (default: bench-out/<scenario>-<yyyyMMdd-HHmmss>).")
    Path out;

    @Option(
            names = {"-d", "--duration"},
            paramLabel = "SECONDS",
            description = "Total phase time per stack, overriding the scenario's; several phases are scaled in"
                    + " proportion.")
    Integer duration;

    @Option(
            names = "--stacks",
            split = ",",
            paramLabel = "NAME",
            description = "Run only these stacks (comma-separated), in scenario order; the first kept is the baseline.")
    List<String> stacks;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Where the stacks' stores are created, one fresh subdirectory each (default: <out>/data)."
                    + " Deleted after each stack unless --keep-data.")
    Path dataDir;

    @Option(names = "--keep-data", description = "Keep each stack's store after it ran.")
    boolean keepData;

    @Option(
            names = "--in-process",
            description = "Run the stacks in this JVM instead of one child JVM each (faster to start, but peak RSS is"
                    + " then the highest VmRSS sampled during the stack, in a shared process).")
    boolean inProcess;

    @Option(
            names = "--heap",
            paramLabel = "SIZE",
            defaultValue = "1g",
            description = "Java heap (-Xmx) of each stack's child JVM (default: ${DEFAULT-VALUE}).")
    String heap;

    @Option(
            names = "--no-device",
            description = "Ignore the scenario's device model and Env options (run on the machine's disk).")
    boolean noDevice;

    @Option(
            names = "--no-progress",
            description = "No progress bar; one status line every 10 s instead (the default when the console is not"
                    + " a terminal, e.g. output to a file or a CI log).")
    boolean noProgress;

    /** Lists the shipped scenarios for --help. */
    static final class ShippedScenarios implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Scenarios.shipped().iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        if (stacks != null && stacks.stream().allMatch(n -> n == null || n.isBlank())) {
            // "--stacks ," splits into nothing; without this check the run took every stack of the scenario
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--stacks names no stack; give one or more stack names, comma-separated");
        }
        BenchRun.Request req = new BenchRun.Request(
                scenario, out, duration, stacks, dataDir, keepData, inProcess, heap, noDevice, noProgress);
        SluiceCli cli = SluiceCli.of(parent);
        try {
            return BenchRun.run(req, cli.out, cli.err);
        } catch (ScenarioException | IllegalArgumentException e) {
            // Bad input: picocli's handler prints the message as one line and exits with 2.
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
