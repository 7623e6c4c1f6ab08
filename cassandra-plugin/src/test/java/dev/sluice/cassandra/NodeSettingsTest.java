package dev.sluice.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ConfigException;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The node-wide {@code sluice.*} system properties: defaults, and every bad value refused naming the property. */
class NodeSettingsTest {
    static Properties props(Map<String, String> m) {
        Properties p = new Properties();
        p.putAll(m);
        p.put("java.version", "17"); // unrelated properties are ignored
        return p;
    }

    @Test
    void defaultsAreAdmissionEverySecond() {
        NodeSettings s = NodeSettings.from(props(Map.of()));
        assertThat(s.controls()).containsExactly("admission");
        assertThat(s.tick().toMillis()).isEqualTo(1000);
        assertThat(s.eventsFile()).isNull();
        assertThat(s.controlOptions().get("admission")).containsEntry("watermark.target", "0.5");
        assertThat(s.providers()).containsKeys("admission", "static-admission", "cruise-compaction-priority", "adoc");
    }

    @Test
    void controllersAndTheirOptionsAreParsedWithTheControllersOwnDescriptors() {
        NodeSettings s = NodeSettings.from(props(Map.of(
                "sluice.controls", " cruise-compaction-priority , admission ",
                "sluice.control.admission.initial.rate", "2000",
                "sluice.tick.ms", "250")));
        assertThat(s.controls()).containsExactly("cruise-compaction-priority", "admission");
        assertThat(s.controlOptions().get("admission")).containsEntry("initial.rate", "2000");
        assertThat(s.tick().toMillis()).isEqualTo(250);
        assertThat(NodeSettings.from(props(Map.of("sluice.controls", ""))).controls())
                .isEmpty();
    }

    @Test
    void badSettingsAreRefusedNamingTheProperty() {
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.controls", "admission,nope"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.controls: 'nope' is not a known controller")
                .hasMessageContaining("admission");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.control.admission.k1", "abc"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.control.admission.k1");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.control.admission.nonsense", "1"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.control.admission.nonsense");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.control.adoc.ratio", "2"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'adoc' is not in sluice.controls");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.tick.ms", "5"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.tick.ms");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.tikc.ms", "100"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.tikc.ms");
        assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.controls", "admission,admission"))))
                .hasMessageContaining("names 'admission' twice");
        // in the shaded jar, but not made for a Cassandra node: refused by name (Cassandra probe, 2026-11-28)
        for (String v : new String[] {"vlsm-l0", "admission,deferral"}) {
            assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.controls", v))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("runs on RocksDB only (on Cassandra: ")
                    .hasMessageContaining("admission");
        }
        // the engine's list syntax: brackets as in a properties file
        assertThat(NodeSettings.from(props(Map.of("sluice.controls", "[admission]")))
                        .controls())
                .containsExactly("admission");
        // an empty item is a name left out, not nothing: refused as the engine's controls option refuses it
        for (String v : new String[] {"admission,", "admission,,cruise-compaction-priority", ",admission"}) {
            assertThatThrownBy(() -> NodeSettings.from(props(Map.of("sluice.controls", v))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("sluice.controls = '" + v + "' has an empty item");
        }
    }

    /**
     * An events file that cannot be opened: the message names the node's property, not the engine's option it is
     * passed to (control.events.file), and is a ConfigException, which validateOptions turns into a refusal naming it
     * (a probe of the plugin, 2026-11-28: Cassandra showed "validateOptions() threw an error: UncheckedIOException").
     */
    @Test
    void anEventsFileThatCannotBeOpenedIsNamedByItsNodeProperty() {
        NodeSettings s = NodeSettings.from(props(Map.of("sluice.events.file", "/proc/no-such-dir/events.jsonl")));
        assertThatThrownBy(() -> new NodeControl(s))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sluice.events.file = /proc/no-such-dir/events.jsonl: cannot open it");
    }

    /**
     * A probe (2026-11-29): with sluice.events.file set and a controller option the controller refuses, every refused
     * CREATE/ALTER left the events file open until a GC (40 refused ALTERs, 40 handles).
     */
    @Test
    void aControllerOptionRefusedAtStartClosesTheEventsFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path events = dir.resolve("events.jsonl");
        NodeSettings s = NodeSettings.from(props(Map.of(
                "sluice.events.file", events.toString(),
                "sluice.controls", "admission",
                "sluice.control.admission.watermark.target", "0.9")));
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> new NodeControl(s))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("sluice.control.admission: ");
        }
        assertThat(openHandles(events)).isZero();
    }

    private static long openHandles(java.nio.file.Path file) throws java.io.IOException {
        java.nio.file.Path real = file.toRealPath();
        try (java.util.stream.Stream<java.nio.file.Path> fds =
                java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                        try {
                            return java.nio.file.Files.readSymbolicLink(fd).equals(real);
                        } catch (java.io.IOException | UnsupportedOperationException e) {
                            return false; // closed meanwhile, or not a link
                        }
                    })
                    .count();
        }
    }
}
