package dev.sluice.core.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where control events go: a bounded in-memory ring buffer (newest kept), a Micrometer counter {@code
 * sluice.control.events} tagged by controller, knob and outcome, and optionally a JSON-lines file.
 *
 * <p>Thread-safety: {@link #record} is called by the tick thread (and the manual-compaction thread); reads may come
 * from any thread. All methods synchronize on this object.
 */
public final class ControlEventLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControlEventLog.class);

    private final int capacity;
    private final ArrayDeque<ControlEvent> ring;
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new LinkedHashMap<>();
    private final ObjectMapper json =
            new ObjectMapper().findAndRegisterModules().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private BufferedWriter out;
    private long total;

    public ControlEventLog(int capacity, MeterRegistry registry, Path jsonLinesFile) {
        this.capacity = capacity;
        this.ring = new ArrayDeque<>(Math.min(capacity, 4096));
        this.registry = registry;
        if (jsonLinesFile != null) {
            out = openForAppend(jsonLinesFile);
        }
    }

    /**
     * Opens (creating it and its directories) a JSON-lines file for appending; the node also calls it, and closes the
     * writer, before it creates a store, so that a path that cannot be written fails before anything is made.
     *
     * @throws UncheckedIOException naming the file and the file system's reason
     */
    public static BufferedWriter openForAppend(Path jsonLinesFile) {
        try {
            Path parent = jsonLinesFile.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return Files.newBufferedWriter(
                    jsonLinesFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            String why = e instanceof java.nio.file.FileSystemException f && f.getReason() != null
                    ? f.getReason()
                    : Files.isDirectory(jsonLinesFile) ? "it is a directory" : e.toString();
            throw new UncheckedIOException("cannot open control.events.file " + jsonLinesFile + ": " + why, e);
        }
    }

    public synchronized void record(ControlEvent e) {
        if (ring.size() == capacity) {
            ring.removeFirst();
        }
        ring.addLast(e);
        total++;
        String key = e.controller() + '|' + e.knob() + '|' + e.outcome();
        counters.computeIfAbsent(
                        key,
                        k -> Counter.builder("sluice.control.events")
                                .description("Control decisions by controller, knob and outcome")
                                .tag("controller", e.controller())
                                .tag("knob", knobName(e.knob()))
                                .tag("outcome", e.outcome().name())
                                .register(registry))
                .increment();
        if (e.outcome() == ControlEvent.Outcome.FAILED) {
            log.warn("control {} {} on {} failed: {}", e.controller(), e.action(), e.partition(), e.detail());
        } else {
            log.debug(
                    "control {} {} on {}: {} ({})", e.controller(), e.action(), e.partition(), e.outcome(), e.reason());
        }
        if (out != null) {
            try {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("time", e.time().toString());
                m.put("tickerNanos", e.tickerNanos());
                m.put("controller", e.controller());
                m.put("partition", e.partition());
                m.put("knob", e.knob());
                m.put("action", e.action());
                m.put("reason", e.reason());
                m.put("outcome", e.outcome().name());
                m.put("detail", e.detail());
                out.write(json.writeValueAsString(m));
                out.newLine();
                out.flush();
            } catch (IOException ex) {
                log.warn("cannot write control event to file; further events stay in memory only: {}", ex.toString());
                closeQuietly();
            }
        }
    }

    /** Knob without the partition and without per-file suffixes, to keep metric cardinality bounded. */
    private static String knobName(String knob) {
        String k = knob.substring(knob.indexOf('/') + 1);
        int colon = k.indexOf(':');
        return colon < 0 ? k : k.substring(0, colon);
    }

    /** Events oldest first. */
    public synchronized List<ControlEvent> recent() {
        return new ArrayList<>(ring);
    }

    /** Events recorded since creation (including those dropped from the ring). */
    public synchronized long total() {
        return total;
    }

    private void closeQuietly() {
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException ignored) {
            // nothing more to do: the file was the optional copy
        }
        out = null;
    }

    @Override
    public synchronized void close() {
        closeQuietly();
    }
}
