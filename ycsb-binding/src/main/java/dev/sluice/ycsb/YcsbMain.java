package dev.sluice.ycsb;

import dev.sluice.core.ConfigException;
import dev.sluice.core.SluiceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import site.ycsb.Client;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/**
 * {@code sluice ycsb load|run -P <workload> [-P <file> ...] [-p key=value ...] [-threads N] [-target R] [-s] [-l label]}
 *
 * <p>Runs the real YCSB {@link Client} with {@code -db dev.sluice.ycsb.SluiceClient} filled in:
 *
 * <ul>
 *   <li>{@code load} = YCSB {@code -load}, {@code run} = YCSB {@code -t}.
 *   <li>{@code -P workloada} … {@code workloadf} name the workload files shipped in this jar (extracted to a temporary
 *       file); any other value is a path. An existing file of that name wins over a shipped workload.
 *   <li>The data directory ({@code sluice.dir}, default {@code ycsb-data/} in the working directory) is kept, so {@code
 *       run} finds what {@code load} wrote.
 *   <li>With a target rate ({@code -target R} or {@code target=R}) and no {@code measurement.interval} given, adds
 *       {@code measurement.interval=intended}: latencies are measured from each operation's intended start time, so a
 *       stall shows up in the latencies instead of being hidden by coordinated omission.
 * </ul>
 *
 * The binding properties are validated and the engine is opened before YCSB starts, so a bad property or an unusable
 * store fails at once with one clear message (exit status 2 for usage and property errors, 1 when the store cannot be
 * opened). After that the exit status is YCSB's: {@code Client} exits 0 even when operations failed — check the {@code
 * Return=} lines of its report.
 */
public final class YcsbMain {
    static final String DB_CLASS = SluiceClient.class.getName();
    /** Counts YCSB takes as longs: a value above 2^31 is legal (a sharded load starts at insertstart 5,000,000,000). */
    private static final java.util.Set<String> LONG_COUNTS =
            java.util.Set.of(Client.RECORD_COUNT_PROPERTY, "insertstart", "fieldcount");

    static final List<String> SHIPPED_WORKLOADS =
            List.of("workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf");
    static final String LOGBACK_CONFIG = "sluice-ycsb-logback.xml";

    static final String USAGE = String.join(
            "\n",
            "usage: sluice ycsb load|run -P <workload> [-P <file> ...] [-p key=value ...] [-threads N] [-target R] [-s]"
                    + " [-l label]",
            "  <workload>   workloada..workloadf (shipped, YCSB core workloads A-F) or a workload file path",
            "  -p k=v       a YCSB or binding property; later wins over -P files",
            "  -threads N   client threads (default 1)",
            "  -target R    offered rate in ops/s; latency is then measured from the intended start time",
            "  -s           print status every status.interval seconds (default 10) to stderr",
            "binding properties (-p sluice.<name>=...):",
            optionLines(),
            "The data directory is kept between load and run. Example:",
            "  sluice ycsb load -P workloada -p recordcount=100000 -threads 2",
            "  sluice ycsb run  -P workloada -p operationcount=200000 -threads 4 -target 20000");

    private YcsbMain() {}

    /** A parsed command line: what to pass to YCSB's Client, and the properties it will see. */
    record Launch(boolean load, List<String> ycsbArgs, Properties effective, boolean intendedLatency) {}

    /** A command-line mistake; the message says what and how to fix it. */
    static final class UsageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** YCSB's entry point ({@code Client::main}, which ends with System.exit); tests pass a stand-in. */
    @FunctionalInterface
    interface YcsbClient {
        void main(String[] args);
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", LOGBACK_CONFIG);
        }
        System.exit(run(args, Path.of(""), System.out, System.err, Client::main));
    }

    /**
     * Refuses a workload whose largest record (CoreWorkload's {@code fieldcount} fields of up to {@code fieldlength}
     * bytes, named {@code fieldnameprefix} + index, in {@link RecordCodec}'s encoding) exceeds {@code
     * limits.max.value.bytes}: the store would refuse every insert, each with a warning and a stack trace, and YCSB
     * would end with "Operations 0" and exit 0 (a probe, 2026-11-29: {@code -p fieldlength=200000000}).
     */
    static void checkRecordSize(Properties effective, int maxValueBytes) {
        long count = Long.parseLong(effective.getProperty("fieldcount", "10").trim());
        long length = Long.parseLong(effective.getProperty("fieldlength", "100").trim());
        String prefix = effective.getProperty("fieldnameprefix", "field");
        long nameBytes = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                + String.valueOf(count - 1).length();
        long perField = varintBytes(nameBytes) + nameBytes + varintBytes(length) + length;
        long record = 1 + varintBytes(count) + count * perField;
        if (record > maxValueBytes) {
            throw new UsageException("a record of fieldcount = " + count + " fields of fieldlength = " + length
                    + " bytes takes up to " + record + " bytes, more than limits.max.value.bytes = " + maxValueBytes
                    + " (raise it with -p " + BindingProperties.PREFIX + "limits.max.value.bytes=N, allowed "
                    + SluiceConfig.MAX_VALUE_BYTES_OPTION.allowed() + ", or lower fieldcount/fieldlength)");
        }
    }

    private static long varintBytes(long v) {
        return v < 1L << 7 ? 1 : v < 1L << 14 ? 2 : v < 1L << 21 ? 3 : v < 1L << 28 ? 4 : 5;
    }

    /**
     * The launcher: checks the command line and every binding property, opens the engine, then hands over to {@code
     * client} (YCSB's {@code Client.main}, which exits the JVM itself). Returns the exit code when it does not get
     * that far (2 usage or property error, nothing created on disk; 1 the store cannot be opened), or 0 when {@code
     * client} returns.
     */
    static int run(String[] args, Path cwd, PrintStream out, PrintStream err, YcsbClient client) {
        if (args.length == 0 || List.of("help", "-h", "-help", "--help").contains(args[0])) {
            out.println(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        Launch launch;
        SluiceConfig config;
        try {
            launch = parse(args, cwd);
            config = BindingProperties.toValidatedConfig(launch.effective(), cwd);
            checkWorkload(launch.effective());
            checkRecordSize(launch.effective(), config.maxValueBytes());
        } catch (RuntimeException e) {
            err.println("sluice ycsb: " + e.getMessage() + " (run `sluice ycsb help` for usage)");
            return 2;
        }
        SharedNode held;
        try {
            held = SharedNode.acquire(config);
        } catch (ConfigException e) { // e.g. sluice.env=priority where the priority Env cannot run
            err.println("sluice ycsb: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("sluice ycsb: cannot open the store at " + config.dataDir() + ": " + e.getMessage());
            return 1;
        }
        err.printf(
                "sluice ycsb %s: data dir %s (%s), partitions %d, profile %s, controls %s, sync %s, latency from %s%n",
                launch.load() ? "load" : "run",
                config.dataDir(),
                held.loadedBefore() ? "existing store" : "new store",
                config.partitions().size(),
                config.profile(),
                config.controls(),
                config.syncWrites(),
                launch.intendedLatency() ? "intended start (measurement.interval=intended)" : "actual start");
        if (!launch.load() && !held.loadedBefore()) {
            err.println("sluice ycsb: warning: nothing was loaded into " + config.dataDir()
                    + " yet; reads will return NOT_FOUND. Run `sluice ycsb load` with the same workload first.");
        }
        // Client.main ends with System.exit: this hook drops our reference, which closes the engine cleanly once
        // YCSB's client threads (which joined already) have dropped theirs.
        Thread closer = new Thread(held::release, "sluice-ycsb-close");
        Runtime.getRuntime().addShutdownHook(closer);
        int code = 0;
        try {
            client.main(launch.ycsbArgs().toArray(String[]::new)); // YCSB's ends with System.exit
        } catch (RuntimeException e) { // e.g. a malformed YCSB property: do not leave the JVM hanging on the engine
            err.println("sluice ycsb: YCSB failed: " + e);
            e.printStackTrace(err);
            code = 1;
        }
        Runtime.getRuntime().removeShutdownHook(closer);
        held.release();
        return code;
    }

    /** Parses the launcher's command line (first word load|run) into YCSB Client arguments. */
    static Launch parse(String[] args, Path cwd) {
        if (args.length == 0) {
            throw new UsageException("missing command: load or run");
        }
        boolean load = switch (args[0]) {
            case "load" -> true;
            case "run" -> false;
            default -> throw new UsageException("unknown command '" + args[0] + "': expected load or run");
        };
        List<String> out = new ArrayList<>(List.of(load ? "-load" : "-t", "-db", DB_CLASS));
        Properties fileProps = new Properties();
        Properties cliProps = new Properties();
        for (int i = 1; i < args.length; i++) {
            String opt = args[i];
            switch (opt) {
                case "-P" -> {
                    Path file = resolveWorkload(value(args, ++i, opt), cwd);
                    fileProps.putAll(readProperties(file));
                    out.add("-P");
                    out.add(file.toString());
                }
                case "-p" -> {
                    String kv = value(args, ++i, opt);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException("-p expects key=value, got '" + kv + "'");
                    }
                    cliProps.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
                    out.add("-p");
                    out.add(kv);
                }
                case "-threads" -> {
                    String n = value(args, ++i, opt);
                    positiveInt(n, opt);
                    cliProps.setProperty(Client.THREAD_COUNT_PROPERTY, n);
                    out.add(opt);
                    out.add(n);
                }
                case "-target" -> {
                    String n = value(args, ++i, opt);
                    positiveInt(n, opt);
                    cliProps.setProperty(Client.TARGET_PROPERTY, n);
                    out.add(opt);
                    out.add(n);
                }
                case "-l" -> {
                    out.add(opt);
                    out.add(value(args, ++i, opt));
                }
                case "-s" -> out.add(opt);
                case "-db" ->
                    throw new UsageException("-db is fixed to " + DB_CLASS
                            + " by this launcher; run site.ycsb.Client directly for others");
                case "-load", "-t" ->
                    throw new UsageException(opt + " is implied by the command: use `load` or `run` as the first word");
                default -> throw new UsageException("unknown option '" + opt + "'");
            }
        }
        Properties effective = new Properties();
        effective.putAll(fileProps);
        effective.putAll(cliProps);
        if (effective.getProperty(Client.WORKLOAD_PROPERTY) == null) {
            throw new UsageException("no workload given: add -P workloada (shipped: " + SHIPPED_WORKLOADS
                    + ") or -P <file>, or -p workload=<class>");
        }
        // Numbers YCSB's Client parses itself (after the store is open, with a stack trace), and CoreWorkload's sizes
        // (a bad one fails inside YCSB's worker threads: a NegativeArraySizeException per thread, then "Operations 0"
        // and exit 0): check them first. The value is the smallest each allows.
        Map<String, Integer> least = new LinkedHashMap<>();
        least.put(Client.THREAD_COUNT_PROPERTY, 1);
        least.put(Client.RECORD_COUNT_PROPERTY, 0);
        least.put(Client.OPERATION_COUNT_PROPERTY, 0);
        least.put(Client.INSERT_COUNT_PROPERTY, 0);
        least.put("insertstart", 0);
        for (String key : List.of("fieldcount", "fieldlength", "minfieldlength", "minscanlength", "maxscanlength")) {
            least.put(key, 1);
        }
        for (Map.Entry<String, Integer> e : least.entrySet()) {
            String key = e.getKey();
            String v = effective.getProperty(key);
            if (v != null) {
                long n;
                try {
                    // CoreWorkload reads these three as longs (YCSB 0.17); what else it cannot take (an insertcount
                    // that does not fit an int, say) its own init refuses in checkWorkload
                    n = LONG_COUNTS.contains(key) ? Long.parseLong(v.trim()) : Integer.parseInt(v.trim());
                } catch (NumberFormatException x) {
                    throw new UsageException(key + " = '" + v + "' is not a whole number"
                            + (LONG_COUNTS.contains(key) ? "" : " of at most " + Integer.MAX_VALUE));
                }
                if (n < e.getValue()) {
                    throw new UsageException(
                            key + " = " + n + " must be " + (e.getValue() == 1 ? "positive" : "0 or more"));
                }
            }
        }
        // CoreWorkload.init calls System.exit(-1) on this one (YCSB 0.17): in the launcher, checkWorkload's init would
        // end the JVM with YCSB's two lines and exit code 255 instead of this refusal
        long recordCount = Long.parseLong(
                effective.getProperty(Client.RECORD_COUNT_PROPERTY, "0").trim());
        if (recordCount == 0) {
            recordCount = Integer.MAX_VALUE; // as CoreWorkload does
        }
        long insertStart =
                Long.parseLong(effective.getProperty("insertstart", "0").trim());
        String ic = effective.getProperty(Client.INSERT_COUNT_PROPERTY);
        long insertCount = ic == null ? recordCount - insertStart : Long.parseLong(ic.trim());
        if (recordCount < insertStart + insertCount) {
            throw new UsageException("recordcount = " + recordCount + " must be at least insertstart + insertcount = "
                    + insertStart + " + " + insertCount + " (YCSB's CoreWorkload reads keys below recordcount)");
        }
        for (String key : List.of(
                "readproportion",
                "updateproportion",
                "insertproportion",
                "scanproportion",
                "readmodifywriteproportion",
                "deleteproportion")) {
            String v = effective.getProperty(key);
            if (v != null) {
                double d;
                try {
                    d = Double.parseDouble(v.trim());
                } catch (NumberFormatException e) {
                    throw new UsageException(key + " = '" + v + "' is not a number");
                }
                if (!(d >= 0 && d <= 1)) {
                    throw new UsageException(key + " = " + v.trim() + " must be between 0 and 1");
                }
            }
        }
        if (!load && "site.ycsb.workloads.CoreWorkload".equals(effective.getProperty(Client.WORKLOAD_PROPERTY))) {
            // all zero: YCSB's chooser fails in every worker thread ("AssertionError: oops"), then "Operations 0", exit
            // 0
            double sum = 0;
            for (Map.Entry<String, String> e : Map.of(
                            "readproportion", "0.95", // CoreWorkload's defaults for keys not given
                            "updateproportion", "0.05",
                            "insertproportion", "0",
                            "scanproportion", "0",
                            "readmodifywriteproportion", "0")
                    .entrySet()) {
                sum += Double.parseDouble(
                        effective.getProperty(e.getKey(), e.getValue()).trim());
            }
            if (sum <= 0) {
                throw new UsageException("readproportion, updateproportion, insertproportion, scanproportion and"
                        + " readmodifywriteproportion are all 0: a run would do no operation");
            }
        }
        String target = effective.getProperty(Client.TARGET_PROPERTY, "0").trim();
        boolean targeted;
        try {
            targeted = Integer.parseInt(target) > 0;
        } catch (NumberFormatException e) {
            throw new UsageException("target = '" + target + "' is not a whole number of operations per second");
        }
        boolean intended;
        String interval = effective.getProperty("measurement.interval");
        if (targeted && interval == null) {
            out.add("-p");
            out.add("measurement.interval=intended");
            effective.setProperty("measurement.interval", "intended");
            intended = true;
        } else {
            intended = "intended".equals(interval) || "both".equals(interval);
        }
        return new Launch(load, List.copyOf(out), effective, intended);
    }

    /**
     * Initialises the workload the way YCSB's {@code Client} will (its measurements first, then {@code
     * Workload.init}), so that what YCSB itself refuses — an unknown {@code requestdistribution}, {@code
     * measurementtype} or {@code measurement.interval}, a workload class that does not load — fails here with exit 2,
     * before the store is opened. YCSB's {@code Client} prints a stack trace for these and exits 0. The measurements
     * object YCSB keeps as a singleton is created here from the same properties YCSB's {@code Client} sees.
     */
    static void checkWorkload(Properties props) {
        try {
            new Measurements(props); // throws on an unknown measurementtype or measurement.interval
        } catch (RuntimeException e) {
            throw new UsageException("YCSB refuses the workload's properties: " + e.getMessage());
        }
        Measurements.setProperties(props); // CoreWorkload takes YCSB's measurements singleton when constructed
        String name = props.getProperty(Client.WORKLOAD_PROPERTY, "").trim();
        Workload workload;
        try {
            workload = (Workload) Class.forName(name, true, YcsbMain.class.getClassLoader())
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (InvocationTargetException e) {
            throw new UsageException(
                    Client.WORKLOAD_PROPERTY + " = '" + name + "' cannot be constructed: " + e.getCause());
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new UsageException(Client.WORKLOAD_PROPERTY + " = '" + name
                    + "' is not a YCSB workload class that can be loaded: " + e);
        }
        try {
            workload.init(props);
            workload.cleanup();
        } catch (WorkloadException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new UsageException("YCSB refuses the workload's properties: " + why);
        }
    }

    /** A path to an existing file, or one of the shipped workloads extracted to a temporary file. */
    static Path resolveWorkload(String name, Path cwd) {
        Path path = cwd.resolve(name);
        if (Files.isRegularFile(path)) {
            return path.toAbsolutePath();
        }
        String shipped = name.toLowerCase(Locale.ROOT);
        if (!SHIPPED_WORKLOADS.contains(shipped)) {
            throw new UsageException(
                    "workload '" + name + "' is neither a file nor a shipped workload " + SHIPPED_WORKLOADS);
        }
        try (InputStream in = YcsbMain.class.getResourceAsStream("/workloads/" + shipped)) {
            if (in == null) {
                throw new IllegalStateException("shipped workload /workloads/" + shipped + " missing from the jar");
            }
            Path tmp = Files.createTempFile("sluice-ycsb-" + shipped + "-", ".properties");
            tmp.toFile().deleteOnExit();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            return tmp;
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract workload " + shipped + ": " + e.getMessage(), e);
        }
    }

    private static Properties readProperties(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            p.load(r); // ISO-8859-1: what YCSB's Client uses (Properties.load(InputStream))
        } catch (IOException | IllegalArgumentException e) {
            throw new UsageException("cannot read workload file " + file + ": " + e.getMessage());
        }
        return p;
    }

    private static String value(String[] args, int i, String opt) {
        if (i >= args.length) {
            throw new UsageException(opt + " needs a value");
        }
        return args[i];
    }

    private static void positiveInt(String v, String opt) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException(opt + " expects a whole number, got '" + v + "'");
        }
        if (n <= 0) {
            throw new UsageException(opt + " must be positive, got " + n);
        }
    }

    private static String optionLines() {
        StringBuilder sb = new StringBuilder();
        for (BindingProperties.Option o : BindingProperties.OPTIONS) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(String.format("  %-36s default %s", o.key(), o.defaultValue()));
        }
        return sb.toString();
    }
}
