package dev.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code sluice jmh [JMH options]}: runs the JMH benchmarks in this jar ({@code org.openjdk.jmh.Main} with the given
 * arguments, e.g. {@code sluice jmh SnapshotSampling -rf json}). Forks, warm-ups and iterations are set on each
 * benchmark class; JMH options override them.
 */
@Command(
        name = "jmh",
        description = {
            "Runs the JMH microbenchmarks of this jar (arguments go to org.openjdk.jmh.Main; -h lists JMH's options).",
            "Examples: sluice jmh -l    sluice jmh SnapshotSampling    sluice jmh PartitionOps -rf json -rff jmh.json"
        })
public final class JmhCommand implements Callable<Integer> {
    /** Everything after {@code jmh}, passed to JMH untouched (JMH has its own -h, -l, -f, -wi, -i, -rf, ...). */
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        org.openjdk.jmh.Main.main(args.toArray(new String[0]));
        return 0;
    }
}
