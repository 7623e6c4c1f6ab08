package dev.sluice.bench.cassandra;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A Cassandra scenario ({@code cassandra-scenarios/<name>.scenario} on the classpath, or a file): Java properties
 * described in cassandra-flood.scenario. Every problem is reported with the key and the file.
 */
record CassandraScenario(
        String name,
        String source,
        String text,
        String description,
        int durationSeconds,
        int warmupSeconds,
        int jitWarmupSeconds,
        long seed,
        int keys,
        int valueBytes,
        List<Phase> phases,
        String heap,
        Map<String, String> yaml,
        String tableOptions,
        List<Stack> stacks) {

    record Phase(String name, double fraction, double readFraction, int concurrency) {}

    record Stack(String name, String description, String compaction, Map<String, String> sysprops) {}

    /**
     * The warm-up for a run of {@code seconds}: the scenario's, but at most a third of a shorter run (a smoke run set by
     * {@code --duration}), so that some windows are measured.
     */
    int warmupFor(int seconds) {
        return Math.min(warmupSeconds, seconds / 3);
    }

    static CassandraScenario load(String nameOrPath) throws IOException {
        Path file = Path.of(nameOrPath);
        String text;
        String source;
        if (Files.isRegularFile(file)) {
            text = Files.readString(file);
            source = file.toString();
        } else {
            String res = "cassandra-scenarios/" + nameOrPath + ".scenario";
            try (InputStream in = CassandraScenario.class.getClassLoader().getResourceAsStream(res)) {
                if (in == null) {
                    throw new IllegalArgumentException("no Cassandra scenario '" + nameOrPath
                            + "' (built in: cassandra-flood; or give a file path)");
                }
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            source = "classpath:" + res;
        }
        return parse(nameOrPath.replaceAll(".*/", "").replace(".scenario", ""), source, text);
    }

    static CassandraScenario parse(String name, String source, String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        Reader r = new Reader(p, source);
        List<Phase> phases = new ArrayList<>();
        double sum = 0;
        for (String ph : r.list("phases")) {
            Phase phase = new Phase(
                    ph, r.dbl("phase." + ph + ".fraction", 0, 1), r.dbl("phase." + ph + ".read.fraction", 0, 1), (int)
                            r.dbl("phase." + ph + ".concurrency", 1, 4096));
            sum += phase.fraction();
            phases.add(phase);
        }
        if (Math.abs(sum - 1) > 1e-6) {
            throw new IllegalArgumentException(source + ": phase fractions add up to " + sum + ", not 1");
        }
        Map<String, String> yaml = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith("yaml.")) {
                yaml.put(k.substring(5), p.getProperty(k).trim());
            }
        }
        List<Stack> stacks = new ArrayList<>();
        for (String s : r.list("stacks")) {
            Map<String, String> sys = new LinkedHashMap<>();
            String raw = p.getProperty("stack." + s + ".sysprops", "");
            for (String kv : raw.split(";")) {
                if (kv.isBlank()) {
                    continue;
                }
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException(
                            source + ": stack." + s + ".sysprops: '" + kv.trim() + "' is not key=value");
                }
                sys.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
            stacks.add(new Stack(
                    s, p.getProperty("stack." + s + ".description", s), r.text("stack." + s + ".compaction"), sys));
        }
        return new CassandraScenario(
                name,
                source,
                text,
                r.text("description"),
                (int) r.dbl("duration.seconds", 5, 86_400),
                (int) r.dbl("warmup.seconds", 0, 3600),
                p.getProperty("jit.warmup.seconds") == null ? 0 : (int) r.dbl("jit.warmup.seconds", 0, 3600),
                (long) r.dbl("seed", 0, Long.MAX_VALUE),
                (int) r.dbl("keys", 1, Integer.MAX_VALUE),
                (int) r.dbl("value.bytes", 8, 1 << 20),
                phases,
                p.getProperty("node.heap", "1g").trim(),
                yaml,
                tableOptions(p, source),
                stacks);
    }

    /**
     * {@code table.options}: CQL table options for the measured table (and the JIT warm-up table) of every stack, as
     * after {@code WITH ... AND} (e.g. {@code compression = {'class': 'DeflateCompressor'}}); empty when absent. The
     * stack's compaction is set separately, so a {@code compaction} option here is refused.
     */
    private static String tableOptions(Properties p, String source) {
        String v = p.getProperty("table.options", "").trim();
        if (v.toLowerCase(java.util.Locale.ROOT).matches("(?s).*\\bcompaction\\s*=.*")) {
            throw new IllegalArgumentException(
                    source + ": table.options must not set compaction (each stack sets it: stack.<name>.compaction)");
        }
        if (v.contains(";")) {
            throw new IllegalArgumentException(source + ": table.options = '" + v + "' must not contain ';'");
        }
        return v;
    }

    /** {@code " AND <table.options>"}, or "" when the scenario sets none. */
    String tableOptionsClause() {
        return tableOptions.isEmpty() ? "" : " AND " + tableOptions;
    }

    private record Reader(Properties p, String source) {
        String text(String key) {
            String v = p.getProperty(key);
            if (v == null || v.isBlank()) {
                throw new IllegalArgumentException(source + ": missing key '" + key + "'");
            }
            return v.trim();
        }

        double dbl(String key, double min, double max) {
            String v = text(key);
            double d;
            try {
                d = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(source + ": " + key + " = '" + v + "' is not a number");
            }
            if (!(d >= min && d <= max)) {
                throw new IllegalArgumentException(
                        source + ": " + key + " = " + v + " is out of range [" + min + ", " + max + "]");
            }
            return d;
        }

        List<String> list(String key) {
            List<String> out = new ArrayList<>();
            for (String s : text(key).split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
            return out;
        }
    }
}
