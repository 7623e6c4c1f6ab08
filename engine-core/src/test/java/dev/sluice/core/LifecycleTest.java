package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening and closing a node many times leaks no file descriptors and keeps the data. */
class LifecycleTest {
    @TempDir
    Path dir;

    static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void repeatedOpenCloseLeaksNoFileDescriptors() throws IOException {
        SluiceConfig cfg =
                SluiceConfig.builder(dir).partitions("a", "b", "c").build(); // env=auto: priority when available
        // Warm up once so class loading, the JNI library and logging have opened what they keep open.
        try (SluiceNode n = Sluice.open(cfg)) {
            n.partition("a").put("warm".getBytes(), "up".getBytes());
        }
        long before = openFds();
        for (int round = 0; round < 25; round++) {
            try (SluiceNode n = Sluice.open(cfg)) {
                for (String p : n.partitionNames()) {
                    n.partition(p).put(("k" + round).getBytes(), ("v" + round).getBytes());
                }
                n.partition("a").flush();
                try (ScanIterator it = n.partition("b").scan(KeyRange.all())) {
                    assertThat(it.hasNext()).isTrue();
                }
                n.sample();
            }
        }
        long after = openFds();
        assertThat(after).as("open fds before=%d after=%d", before, after).isLessThanOrEqualTo(before + 3);
        try (SluiceNode n = Sluice.open(cfg)) {
            for (int round = 0; round < 25; round++) {
                assertThat(n.partition("c").get(("k" + round).getBytes())).isEqualTo(("v" + round).getBytes());
            }
        }
    }
}
