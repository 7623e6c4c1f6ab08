package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to {@code sluice bench}, refused up front through the real entry point: exit code 2, one line on stderr
 * naming what is wrong (for a stack's configuration: the scenario, the stack and the key), no stack trace, and nothing
 * run or written (no output directory, so no preload, no child JVM, no log).
 */
class BenchCliTest {
    @TempDir
    Path tmp;

    record Result(int exit, String out, String err) {
        /** The non-blank lines on stderr. */
        List<String> errLines() {
            return Arrays.stream(err.split("\\R")).filter(l -> !l.isBlank()).toList();
        }
    }

    static Result sluice(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = SluiceCli.execute(o, e, args);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * results.json in {@code out} holds only {@code finished}, and {@code failed} in failedStacks with an error
     * containing {@code why}.
     */
    static void assertPartialResults(Path out, String finished, String failed, String why) throws IOException {
        var run = dev.sluice.bench.runner.Results.mapper()
                .readValue(out.resolve("results.json").toFile(), dev.sluice.bench.runner.Results.Run.class);
        assertThat(run.stacks())
                .extracting(dev.sluice.bench.runner.Results.Stack::name)
                .containsExactly(finished);
        assertThat(run.failedStacks()).singleElement().satisfies(f -> {
            assertThat(f.name()).isEqualTo(failed);
            assertThat(f.error()).contains(why);
        });
    }

    /** Exit 2, exactly one line on stderr containing every fragment, no stack trace; returns that line. */
    static String refused(Result r, String... fragments) {
        assertThat(r.exit())
                .as("exit code; stdout:%n%s%nstderr:%n%s", r.out(), r.err())
                .isEqualTo(2);
        assertThat(r.errLines()).as("stderr: %s", r.err()).hasSize(1);
        String line = r.errLines().get(0);
        System.out.println("refused: " + line);
        assertThat(line).contains(fragments).doesNotContain("Exception:").doesNotContain("\tat ");
        return line;
    }

    /** The smoke scenario renamed {@code bad}, with {@code extra} appended (e.g. one more stack). */
    private Path scenario(String extra) throws IOException {
        String text;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("scenarios/smoke.scenario")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        text = text.replace("name = smoke", "name = bad") + "\n" + extra + "\n";
        Path file = tmp.resolve("bad.scenario");
        Files.writeString(file, text);
        return file;
    }

    private Result bench(Path scenario, Path out, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "bench",
                "--scenario",
                scenario.toString(),
                "--out",
                out.toString(),
                "--no-progress",
                "--duration",
                "3"));
        args.addAll(List.of(more));
        return sluice(args.toArray(String[]::new));
    }

    @Test
    void aBadEnvValueInAnyStackIsRefusedBeforeTheFirstStackRuns() throws IOException {
        // The bad stack comes second: the first one must not run (no preload, no child JVM, no output directory).
        Path sc = scenario("[stack bad-env]\nprofile = rocksdb-default\nenv.device.iops = -5\n");
        Path out = tmp.resolve("out");
        Result r = bench(sc, out);
        String line = refused(r, "scenario bad", "stack bad-env", "env.device.iops");
        assertThat(line).contains("bad.scenario:");
        assertThat(r.out()).doesNotContain("preload");
        assertThat(out).doesNotExist();
    }

    /**
     * A stack whose JVM fails (here: no usable temporary directory for RocksDB's native library) ends the run with exit
     * 1 and no results: neither a results.json of the stacks that ran nor an empty data directory is left to be taken
     * for a finished run (CLI probe, 2026-11-28, for the empty directory).
     */
    /**
     * The smoke scenario plus a stack "crashes" whose JVM cannot start RocksDB: a temporary directory under a regular
     * file can never be created (an absolute /nonexistent/dir could, and once was, by another program on the machine).
     */
    private Path withACrashingStack() throws IOException {
        Path file = Files.writeString(tmp.resolve("a-file"), "");
        return scenario(
                "[stack crashes]\nprofile = rocksdb-default\nsysprop.java.io.tmpdir = " + file.resolve("dir") + "\n");
    }

    @Test
    void aStackThatCrashesEndsTheRunWithoutResults() throws IOException {
        Path out = tmp.resolve("out");
        Result r = bench(withACrashingStack(), out, "--stacks", "crashes");
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("stack crashes failed").contains("no results written for this run");
        assertThat(r.err()).doesNotContain("failed: stack crashes failed"); // said once, not twice
        assertThat(out.resolve("results.json")).doesNotExist();
        assertThat(out.resolve("summary.md")).doesNotExist();
        assertThat(out.resolve("data")).doesNotExist();
    }

    /**
     * A stack that fails after others finished keeps their results, says which did not finish and exits 1 (a probe,
     * 2026-11-29: a failure in the last stack threw every finished stack's results away).
     */
    @Test
    void aStackThatCrashesAfterOthersKeepsTheirResults() throws IOException {
        Path out = tmp.resolve("out");
        Result r = bench(withACrashingStack(), out, "--stacks", "rocksdb,crashes");
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err())
                .contains("stack crashes failed")
                .contains("the results above are for the 1 stack(s) that finished; 1 did not");
        assertPartialResults(out, "rocksdb", "crashes", "exit code");
        assertThat(Files.readString(out.resolve("summary.md"))).contains("**Warning:** stack crashes has no results");
        assertThat(out.resolve("data")).doesNotExist();
    }

    /** Records larger than a stack's limits are refused before the first stack runs, naming the limit. */
    @Test
    void aStackWhoseLimitsTheScenariosRecordsExceedIsRefusedUpFront() throws IOException {
        Path sc = scenario("[stack tight]\nprofile = rocksdb-default\nconfig.limits.max.value.bytes = 10\n");
        Path out = tmp.resolve("out");
        refused(bench(sc, out), "scenario bad", "stack tight", "config.limits.max.value.bytes", "value.bytes = ");
        assertThat(out).doesNotExist();
    }

    /** A preload record the stack's write quota can never admit is refused up front, not retried for ever. */
    @Test
    void aStackWhoseQuotaCanNeverAdmitAPreloadRecordIsRefusedUpFront() throws IOException {
        Path sc = scenario("[stack tiny]\nprofile = rocksdb-default\nconfig.partition.default.wcu = 1\n"
                + "config.partition.default.quota.max.wait.ms = 0\n");
        Path out = tmp.resolve("out");
        refused(bench(sc, out), "stack tiny", "config.partition.default.wcu", "more than the partition's quota");
        assertThat(out).doesNotExist();
    }

    @Test
    void aBadDeviceValueNamesTheDeviceKey() throws IOException {
        Path sc = scenario("").resolveSibling("bad.scenario");
        Files.writeString(sc, Files.readString(sc).replace("iops = 50000", "iops = lots"));
        Path out = tmp.resolve("out");
        refused(bench(sc, out, "--stacks", "rocksdb"), "scenario bad", "stack rocksdb", "env.device.iops");
        assertThat(out).doesNotExist();
        // --no-device switches the device off for the run, but the scenario's value is still wrong
        refused(bench(sc, out, "--stacks", "rocksdb", "--no-device"), "stack rocksdb", "env.device.iops");
        assertThat(out).doesNotExist();
    }

    @Test
    void aBadControllerValueNamesTheControlKey() throws IOException {
        Path sc =
                scenario("[stack gated]\nprofile = rocksdb-default\ncontrols = admission\ncontrol.admission.k1 = 99\n");
        Path out = tmp.resolve("out");
        refused(bench(sc, out, "--stacks", "gated"), "scenario bad", "stack gated", "control.admission.k1");
        assertThat(out).doesNotExist();
    }

    @Test
    void aBadStackSystemPropertyIsRefused() throws IOException {
        Path sc = scenario("[stack tuned]\nprofile = rocksdb-autotuned-ratelimiter\n"
                + "sysprop.sluice.autotuned.rate.bytes.per.sec = fast\n");
        Path out = tmp.resolve("out");
        refused(
                bench(sc, out, "--stacks", "tuned"),
                "scenario bad",
                "stack tuned",
                "sysprop.sluice.autotuned.rate.bytes.per.sec");
        assertThat(out).doesNotExist();
        // the other benchmark profiles' properties: a bad value, and a name no profile reads (silently ignored before)
        Path tunedBad =
                scenario("[stack tuned]\nprofile = rocksdb-tuned\nsysprop.sluice.tuned.background.jobs = lots\n");
        refused(
                bench(tunedBad, out, "--stacks", "tuned"),
                "sysprop.sluice.tuned.background.jobs",
                "'lots' is not a whole number");
        Path misspelt = scenario("[stack tuned]\nprofile = rocksdb-tuned\nsysprop.sluice.tuned.backround.jobs = 4\n");
        refused(bench(misspelt, out, "--stacks", "tuned"), "sluice.tuned.backround.jobs: no profile reads it");
        assertThat(out).doesNotExist();
    }

    @Test
    void badArgumentsAreOneLineAndExitTwo() throws IOException {
        Path out = tmp.resolve("out");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--heap", "bogus"), "--heap", "bogus");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--heap", "1k"), "--heap");
        refused(sluice("bench", "--scenario", "no-such-scenario", "--out", out.toString()), "no-such-scenario");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--duration", "abc"), "--duration");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--duration", "0"), "--duration");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--stacks", "nope"), "--stacks");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--stacks", ","), "--stacks names no");
        Path typo = Files.writeString(tmp.resolve("typo.scenario"), "name = typo\n[stak rocksdb]\nprofile = x\n");
        refused(
                sluice("bench", "--scenario", typo.toString(), "--out", out.toString()),
                "[stak rocksdb] unknown section");
        refused(sluice("bench", "--scenario", "smoke", "--out", out.toString(), "--bogus"), "--bogus");
        refused(sluice("bench", "--out", out.toString()), "--scenario");
        assertThat(out).doesNotExist();

        Path file = Files.writeString(tmp.resolve("a-file"), "keep me");
        refused(sluice("bench", "--scenario", "smoke", "--out", file.toString()), "--out", "is a file");
        refused(
                sluice(
                        "bench",
                        "--scenario",
                        "smoke",
                        "--out",
                        file.resolve("x").toString()),
                "--out",
                "is a file");
        refused(
                sluice(
                        "bench",
                        "--scenario",
                        "smoke",
                        "--out",
                        out.toString(),
                        "--data-dir",
                        file.resolve("d").toString()),
                "--data-dir",
                "is a file");
        assertThat(Files.readString(file)).isEqualTo("keep me");
        assertThat(out).doesNotExist();
    }

    @Test
    void debugShowsTheStackTrace() {
        Result r = sluice("bench", "--scenario", "no-such-scenario", "--debug");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no-such-scenario").contains("\tat ");
    }
}
