package dev.sluice.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sluice} command line (main class of {@code jmh-bench/target/sluice-bench.jar}; the {@code ./sluice}
 * launcher runs it). Subcommands: {@code bench} (SLA scenario runner) and {@code jmh} (the JMH microbenchmarks).
 */
@Command(
        name = "sluice",
        mixinStandardHelpOptions = true,
        version = "sluice 0.1.0-SNAPSHOT",
        description = "Sluice: steady LSM storage on stock RocksDB — benchmarks and demos.",
        subcommands = {
            BenchCommand.class,
            JmhCommand.class,
            DemoCommand.class,
            ConfigCommand.class,
            ChartsCommand.class,
            CommandLine.HelpCommand.class
        })
public final class SluiceCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SluiceCli()).execute(args));
    }
}
