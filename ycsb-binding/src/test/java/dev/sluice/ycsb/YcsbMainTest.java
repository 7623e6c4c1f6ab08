package dev.sluice.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YcsbMainTest {
    @TempDir
    Path cwd;

    private YcsbMain.Launch parse(String... args) {
        return YcsbMain.parse(args, cwd);
    }

    // ---- command line translation ----

    @Test
    void loadAndRunMapToYcsbPhasesWithTheSluiceDb() {
        assertThat(parse("load", "-P", "workloada").ycsbArgs())
                .startsWith("-load", "-db", "dev.sluice.ycsb.SluiceClient", "-P");
        assertThat(parse("run", "-P", "workloada").ycsbArgs()).startsWith("-t", "-db", "dev.sluice.ycsb.SluiceClient");
        YcsbMain.Launch l =
                parse("run", "-P", "workloadb", "-p", "sluice.partitions=2", "-threads", "3", "-s", "-l", "x");
        assertThat(l.ycsbArgs())
                .endsWith("-p", "sluice.partitions=2", "-threads", "3", "-s", "-l", "x")
                .doesNotContain("measurement.interval=intended");
        assertThat(l.effective().getProperty("sluice.partitions")).isEqualTo("2");
        assertThat(l.effective().getProperty("threadcount")).isEqualTo("3");
        assertThat(l.effective().getProperty("readproportion")).isEqualTo("0.95"); // from workloadb
        assertThat(l.intendedLatency()).isFalse();
    }

    @Test
    void shippedWorkloadsAreExtractedAndFilesWin() throws IOException {
        for (String w : YcsbMain.SHIPPED_WORKLOADS) {
            Path p = Path.of(parse("load", "-P", w).ycsbArgs().get(4));
            assertThat(Files.readString(p, StandardCharsets.ISO_8859_1))
                    .contains("workload=site.ycsb.workloads.CoreWorkload");
        }
        Files.writeString(cwd.resolve("workloada"), "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=7\n");
        YcsbMain.Launch l = parse("load", "-P", "workloada");
        assertThat(l.ycsbArgs().get(4))
                .isEqualTo(cwd.resolve("workloada").toAbsolutePath().toString());
        assertThat(l.effective().getProperty("recordcount")).isEqualTo("7");
    }

    @Test
    void aTargetRateMeasuresFromTheIntendedStart() throws IOException {
        YcsbMain.Launch l = parse("run", "-P", "workloada", "-target", "500");
        assertThat(l.ycsbArgs()).containsSubsequence("-target", "500").endsWith("-p", "measurement.interval=intended");
        assertThat(l.intendedLatency()).isTrue();

        Files.writeString(cwd.resolve("w"), "workload=site.ycsb.workloads.CoreWorkload\ntarget=100\n");
        assertThat(parse("run", "-P", "w").ycsbArgs()).endsWith("-p", "measurement.interval=intended");

        // the user's choice wins
        YcsbMain.Launch both = parse("run", "-P", "workloada", "-target", "500", "-p", "measurement.interval=both");
        assertThat(both.ycsbArgs()).doesNotContain("measurement.interval=intended");
        assertThat(both.intendedLatency()).isTrue();
        assertThat(parse("run", "-P", "workloada", "-target", "5", "-p", "measurement.interval=op")
                        .intendedLatency())
                .isFalse();
    }

    @Test
    void usageErrorsSayWhatIsWrong() {
        assertThatThrownBy(() -> parse("bench")).hasMessageContaining("unknown command 'bench'");
        assertThatThrownBy(() -> parse("load")).hasMessageContaining("no workload given");
        assertThatThrownBy(() -> parse("load", "-P")).hasMessageContaining("-P needs a value");
        assertThatThrownBy(() -> parse("load", "-P", "workloadz"))
                .hasMessageContaining("workload 'workloadz' is neither a file nor a shipped workload")
                .hasMessageContaining("workloadf");
        assertThatThrownBy(() -> parse("load", "-P", "workloada", "-db", "site.ycsb.BasicDB"))
                .hasMessageContaining("-db is fixed");
        assertThatThrownBy(() -> parse("run", "-P", "workloada", "-load")).hasMessageContaining("implied");
        assertThatThrownBy(() -> parse("run", "-P", "workloada", "-threads", "0"))
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> parse("run", "-P", "workloada", "-target", "fast"))
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> parse("run", "-P", "workloada", "-p", "novalue"))
                .hasMessageContaining("key=value");
        assertThatThrownBy(() -> parse("run", "-P", "workloada", "--verbose")).hasMessageContaining("unknown option");
    }

    // ---- the launcher in this JVM: bad input exits 2, names the property and creates nothing ----

    private record InProcess(int exit, String out, String err, boolean ycsbStarted) {}

    private InProcess runLauncher(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        boolean[] started = {false};
        int exit;
        try (java.io.PrintStream o = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
                java.io.PrintStream e = new java.io.PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = YcsbMain.run(args, cwd, o, e, a -> started[0] = true);
        }
        return new InProcess(
                exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), started[0]);
    }

    private void refused(String fragment, String... args) {
        InProcess r = runLauncher(args);
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip())
                .as("one line")
                .doesNotContain("\n")
                .startsWith("sluice ycsb: ")
                .contains(fragment);
        assertThat(r.err()).doesNotContain("\tat ");
        assertThat(r.ycsbStarted()).isFalse();
        assertThat(cwd.resolve("ycsb-data")).as("no store directory").doesNotExist();
    }

    @Test
    void badBindingValuesExitTwoNamingThePropertyAndCreateNothing() {
        refused("sluice.env.device.iops = 'lots'", "load", "-P", "workloada", "-p", "sluice.env.device.iops=lots");
        refused("sluice.env.policy", "load", "-P", "workloada", "-p", "sluice.env.policy=sideways");
        refused("sluice.env.no.such.option", "load", "-P", "workloada", "-p", "sluice.env.no.such.option=1");
        refused(
                "sluice.control.admission.k1 = '99'",
                "load",
                "-P",
                "workloada",
                "-p",
                "sluice.controls=admission",
                "-p",
                "sluice.control.admission.k1=99");
        refused("sluice.profile = 'nope'", "load", "-P", "workloada", "-p", "sluice.profile=nope");
        refused("sluice.controls = 'no-such-loop'", "run", "-P", "workloada", "-p", "sluice.controls=no-such-loop");
        refused("sluice.partitions", "load", "-P", "workloada", "-p", "sluice.partitions=zero");
        refused("threadcount = 'many'", "load", "-P", "workloada", "-p", "threadcount=many");
        refused("recordcount = 'lots'", "load", "-P", "workloada", "-p", "recordcount=lots");
        refused("operationcount = -1", "run", "-P", "workloada", "-p", "operationcount=-1");
    }

    @Test
    void whatYcsbItselfRefusesExitsTwoBeforeTheStoreOpens() {
        // YCSB's Client prints a stack trace for each of these and exits 0
        refused(
                "YCSB refuses the workload's properties: Unknown request distribution \"bogus\"",
                "run",
                "-P",
                "workloada",
                "-p",
                "requestdistribution=bogus");
        refused("unknown measurementtype=bogus", "load", "-P", "workloada", "-p", "measurementtype=bogus");
        refused("unknown measurement.interval=later", "run", "-P", "workloada", "-p", "measurement.interval=later");
        refused(
                "workload = 'java.lang.String' is not a YCSB workload class",
                "load",
                "-P",
                "workloada",
                "-p",
                "workload=java.lang.String");
        refused("workload = 'no.such.Workload'", "load", "-P", "workloada", "-p", "workload=no.such.Workload");
    }

    /**
     * A probe (2026-11-29): {@code fieldlength=200000000} opened the store, every insert was refused with a stack trace
     * and YCSB exited 0 with "Operations 0". A default record is 1,082 bytes; 10 fields of 1,677,711 bytes are 16,777,212
     * bytes, just under the default 16-MiB limit (16,777,216); one byte more per field is over it.
     */
    @Test
    void aRecordLargerThanTheValueLimitExitsTwoBeforeTheStoreOpens() {
        refused(
                "takes up to 2000000112 bytes, more than limits.max.value.bytes = 16777216",
                "load",
                "-P",
                "workloada",
                "-p",
                "fieldlength=200000000");
        refused("sluice.limits.max.value.bytes", "load", "-P", "workloada", "-p", "fieldlength=1677712");
        java.util.Properties p = new java.util.Properties();
        p.setProperty("fieldlength", "1677711");
        YcsbMain.checkRecordSize(p, 16 << 20); // 16,777,212 bytes: accepted
        p.setProperty("fieldlength", "100");
        YcsbMain.checkRecordSize(p, 1082);
        assertThatThrownBy(() -> YcsbMain.checkRecordSize(p, 1081)).hasMessageContaining("takes up to 1082 bytes");
        p.setProperty("fieldlength", "200000000");
        p.setProperty("fieldcount", "1");
        YcsbMain.checkRecordSize(p, 256 << 20); // one field of 200 MB fits a raised limit
    }

    @Test
    void goodInputOpensTheStoreAndHandsOverToYcsb() {
        InProcess r = runLauncher("load", "-P", "workloada", "-p", "sluice.env=default", "-p", "recordcount=10");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.ycsbStarted()).isTrue();
        assertThat(r.err()).contains("sluice ycsb load: data dir").contains("(new store)");
        assertThat(cwd.resolve("ycsb-data")).isDirectory();
    }

    /**
     * CLI probe (2026-11-28): counts CoreWorkload takes as longs were refused above 2^31 as "not a whole number" (a
     * sharded load starting at insertstart 5,000,000,000 is legal); counts YCSB takes as ints say so.
     */
    @Test
    void countsYcsbTakesAsLongsMayExceedAnInt() {
        refused(
                "threadcount = '3000000000' is not a whole number of at most 2147483647",
                "load",
                "-P",
                "workloada",
                "-p",
                "threadcount=3000000000");
        // CoreWorkload.init ends the JVM (System.exit) on this one; refused before it runs
        refused(
                "recordcount = 3000000000 must be at least insertstart + insertcount = 5000000000 + 10",
                "load",
                "-P",
                "workloada",
                "-p",
                "recordcount=3000000000",
                "-p",
                "insertstart=5000000000",
                "-p",
                "insertcount=10");
        InProcess r = runLauncher(
                "load",
                "-P",
                "workloada",
                "-p",
                "sluice.env=default",
                "-p",
                "recordcount=6000000000",
                "-p",
                "insertstart=5000000000",
                "-p",
                "insertcount=10");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.ycsbStarted()).isTrue();
        assertThat(cwd.resolve("ycsb-data")).isDirectory();
    }

    // ---- the real launcher in a child JVM: exit codes, output, data kept between load and run ----

    private record Result(int exit, String out, String err) {}

    private Result launch(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                YcsbMain.class.getName()));
        cmd.addAll(List.of(args));
        Path out = cwd.resolve("stdout.txt"), err = cwd.resolve("stderr.txt");
        Process p = new ProcessBuilder(cmd)
                .directory(cwd.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("launcher did not finish in 60 s: " + Files.readString(err));
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void loadThenRunThroughTheLauncherKeepsTheData() throws Exception {
        Result load =
                launch("load", "-P", "workloada", "-p", "recordcount=300", "-p", "dataintegrity=true", "-threads", "2");
        assertThat(load.exit()).as(load.err()).isZero();
        assertThat(load.out()).contains("[INSERT], Operations, 300").contains("[INSERT], Return=OK, 300");
        assertThat(load.err())
                .contains(
                        "sluice ycsb load: data dir " + cwd.resolve("ycsb-data").toRealPath())
                .contains("(new store)");
        assertThat(cwd.resolve("ycsb-data")).isDirectory();

        Result run = launch(
                "run",
                "-P",
                "workloadc",
                "-p",
                "recordcount=300",
                "-p",
                "operationcount=400",
                "-p",
                "dataintegrity=true",
                "-threads",
                "2",
                "-target",
                "4000");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.err()).contains("(existing store)").contains("latency from intended start");
        // every read found the loaded record and CoreWorkload verified its values
        assertThat(run.out())
                .contains("[READ], Return=OK, 400")
                .contains("[VERIFY], Return=OK, 400")
                .doesNotContain("NOT_FOUND")
                .doesNotContain("UNEXPECTED_STATE");
    }

    @Test
    void badPropertiesAndUnusableStoresFailBeforeYcsbStarts() throws Exception {
        Result bad = launch("load", "-P", "workloada", "-p", "sluice.partitions=zero");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("sluice ycsb: sluice.partitions = 'zero': not a whole number");
        assertThat(bad.out()).doesNotContain("[OVERALL]");

        // CoreWorkload's own sizes and proportions: YCSB would fail in its threads and still exit 0
        Result negative = launch("load", "-P", "workloada", "-p", "fieldlength=-1", "-p", "recordcount=10");
        assertThat(negative.exit()).as(negative.err()).isEqualTo(2);
        assertThat(negative.err()).contains("fieldlength = -1 must be positive");
        assertThat(negative.out()).doesNotContain("[OVERALL]");
        Result proportion = launch("run", "-P", "workloada", "-p", "readproportion=1.5");
        assertThat(proportion.exit()).as(proportion.err()).isEqualTo(2);
        assertThat(proportion.err()).contains("readproportion = 1.5 must be between 0 and 1");
        Result none = launch("run", "-P", "workloada", "-p", "readproportion=0", "-p", "updateproportion=0");
        assertThat(none.exit()).as(none.err()).isEqualTo(2);
        assertThat(none.err()).contains("are all 0: a run would do no operation");

        // A bad Env value: refused before YCSB starts and before any store directory exists.
        Result badEnv = launch("load", "-P", "workloada", "-p", "sluice.env.device.iops=lots");
        assertThat(badEnv.exit()).as(badEnv.err()).isEqualTo(2);
        assertThat(badEnv.err()).contains("sluice ycsb: sluice.env.device.iops = 'lots'");
        assertThat(cwd.resolve("ycsb-data")).doesNotExist();

        Files.createDirectories(cwd.resolve("ycsb-data"));
        Files.writeString(cwd.resolve("ycsb-data/unrelated.txt"), "not a store");
        Result notAStore = launch("run", "-P", "workloada");
        assertThat(notAStore.exit()).isEqualTo(1);
        assertThat(notAStore.err()).contains("cannot open the store at").contains("is not a Sluice store");

        Result usage = launch("help");
        assertThat(usage.exit()).isZero();
        assertThat(usage.out()).contains("usage: sluice ycsb load|run").contains("sluice.partitions");
    }
}
