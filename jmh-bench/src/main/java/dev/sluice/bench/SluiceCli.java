package dev.sluice.bench;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code sluice} command line (main class of {@code jmh-bench/target/sluice-bench.jar}; the {@code ./sluice}
 * launcher runs it). Subcommands: {@code bench} (SLA scenario runner) and {@code jmh} (the JMH microbenchmarks).
 *
 * <p>Exit codes: 0 done; 1 a run failed; 2 bad input (a command-line argument, a scenario file, a configuration
 * value). Bad input is reported as one line on stderr, {@code sluice <command>: <what is wrong>}; {@code --debug} adds
 * the stack trace.
 */
@Command(
        name = "sluice",
        mixinStandardHelpOptions = true,
        version = SluiceCli.VERSION,
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
    /** What {@code --version} prints, for the launcher and every subcommand. */
    public static final String VERSION = "sluice 0.1.0-SNAPSHOT";

    /** Exit code for bad input: picocli's own usage-error code. */
    public static final int BAD_INPUT = CommandLine.ExitCode.USAGE;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    final PrintStream out;
    final PrintStream err;
    boolean debug;

    public SluiceCli() {
        this(System.out, System.err);
    }

    SluiceCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Option(
            names = "--debug",
            scope = ScopeType.INHERIT,
            description = "Print the stack trace of an error, not only its one-line message.")
    void setDebug(boolean debug) {
        this.debug = debug;
    }

    @Override
    public void run() {
        spec.commandLine().usage(out);
    }

    public static void main(String[] args) {
        System.exit(execute(System.out, System.err, args));
    }

    /** Runs {@code args} writing to these streams, and returns the exit code (0 done, 1 failed, 2 bad input). */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        SluiceCli root = new SluiceCli(out, err);
        CommandLine cl = new CommandLine(root);
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((e, a) -> {
            String name = e.getCommandLine().getCommandSpec().qualifiedName();
            err.println(name + ": " + oneLine(e.getMessage()) + " (see '" + name + " --help')");
            if (root.debug) {
                e.printStackTrace(err);
            }
            return BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((e, c, parsed) -> {
            String name = c.getCommandSpec().qualifiedName();
            err.println(name + ": failed: " + oneLine(String.valueOf(e))
                    + (root.debug ? "" : " (--debug shows the stack trace)"));
            if (root.debug) {
                e.printStackTrace(err);
            }
            return CommandLine.ExitCode.SOFTWARE;
        });
        return cl.execute(args);
    }

    static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** The streams of the command line a subcommand runs under (System.out/err when it runs on its own). */
    static SluiceCli of(SluiceCli parent) {
        return parent != null ? parent : new SluiceCli();
    }
}
