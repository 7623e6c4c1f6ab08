package dev.sluice.bench;

import static dev.sluice.bench.BenchCliTest.refused;
import static dev.sluice.bench.BenchCliTest.sluice;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** User errors in {@code sluice demo}, {@code charts}, {@code config} and the top level: exit 2, one line, no trace. */
class OtherCommandsCliTest {
    @TempDir
    Path tmp;

    @Test
    void demoRefusesBadInputBeforeTouchingItsDirectory() throws Exception {
        // A previous demo store: bad arguments must not delete it.
        Path dir = Files.createDirectories(tmp.resolve("demo"));
        Files.writeString(dir.resolve(".sluice-demo"), "created by sluice demo\n");
        Path kept = Files.writeString(dir.resolve("CURRENT"), "previous store");
        refused(sluice("demo", "--dir", dir.toString(), "--profile", "no-such-profile"), "no-such-profile");
        refused(sluice("demo", "--dir", dir.toString(), "--env", "sideways"), "--env", "sideways");
        refused(sluice("demo", "--dir", dir.toString(), "--megabytes", "0"), "--megabytes");
        refused(sluice("demo", "--dir", dir.toString(), "--value-bytes", "-1"), "--value-bytes");
        refused(sluice("demo", "--dir", dir.toString(), "--writers", "abc"), "--writers");
        refused(sluice("demo", "--dir", dir.toString(), "--writers", "2147483647"), "--writers", "at most 1024");
        assertThat(kept).hasContent("previous store");

        Path file = Files.writeString(tmp.resolve("a-file"), "keep me");
        refused(sluice("demo", "--dir", file.toString(), "--no-device"), "--dir", "is a file");
        refused(sluice("demo", "--dir", file.resolve("sub").toString(), "--no-device"), "--dir", "is a file");
        assertThat(file).hasContent("keep me");

        Path foreign = Files.createDirectories(tmp.resolve("foreign"));
        Files.writeString(foreign.resolve("notes.txt"), "mine");
        refused(sluice("demo", "--dir", foreign.toString(), "--no-device"), "was not made by sluice demo");
        assertThat(foreign.resolve("notes.txt")).hasContent("mine");
    }

    @Test
    void chartsRefusesWhatIsNotAResultsFile() throws Exception {
        refused(sluice("charts", tmp.resolve("missing.json").toString()), "no such file");
        refused(sluice("charts", tmp.toString()), "is a directory");
        Path garbage = Files.writeString(tmp.resolve("garbage.json"), "this is { not json");
        refused(sluice("charts", garbage.toString()), "garbage.json", "not a results.json");
        Path empty = Files.writeString(tmp.resolve("empty.json"), "{}");
        refused(sluice("charts", empty.toString()), "empty.json", "no stacks");
        refused(sluice("charts"), "results");
        // parseable, but not what the charts need: one line naming what is missing, exit 2, no chart written
        Path out = Files.createDirectories(tmp.resolve("charts-out"));
        String stack = "{\"name\":\"s\",\"windows\":[],\"phases\":[],\"metrics\":null}";
        Path noWindows =
                Files.writeString(tmp.resolve("no-windows.json"), "{\"schemaVersion\":2,\"stacks\":[" + stack + "]}");
        refused(sluice("charts", noWindows.toString(), "--out", out.toString()), "stack 's' has no windows");
        Path nullStack = Files.writeString(tmp.resolve("null-stack.json"), "{\"schemaVersion\":2,\"stacks\":[null]}");
        refused(sluice("charts", nullStack.toString(), "--out", out.toString()), "stack 1 is null");
        Path future =
                Files.writeString(tmp.resolve("future.json"), "{\"schemaVersion\":99,\"stacks\":[" + stack + "]}");
        refused(sluice("charts", future.toString(), "--out", out.toString()), "schemaVersion 99");
        Path slash = Files.writeString(
                tmp.resolve("slash.json"),
                "{\"schemaVersion\":2,\"stacks\":[{\"name\":\"a/b\",\"windows\":[{}],\"phases\":[],\"metrics\":{}}]}");
        refused(sluice("charts", slash.toString(), "--out", out.toString()), "no usable name", "a/b");
        Path noControls = Files.writeString(
                tmp.resolve("no-controls.json"),
                "{\"schemaVersion\":2,\"stacks\":[{\"name\":\"s\",\"windows\":[{}],\"phases\":[],\"metrics\":{}}]}");
        refused(sluice("charts", noControls.toString(), "--out", out.toString()), "stack 's' has no 'controls'");
        try (java.util.stream.Stream<Path> written = Files.list(out)) {
            assertThat(written).as("nothing drawn for a refused file").isEmpty();
        }
    }

    @Test
    void unknownCommandsAndArgumentsAreOneLine() {
        refused(sluice("config", "extra"), "extra");
        refused(sluice("no-such-command"), "no-such-command");
    }
}
