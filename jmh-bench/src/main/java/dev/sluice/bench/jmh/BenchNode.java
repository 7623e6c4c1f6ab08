package dev.sluice.bench.jmh;

import dev.sluice.bench.workload.KeyCodec;
import dev.sluice.core.Batch;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/** A node in a temporary directory with {@code keys} preloaded keys and one flush, for the JMH benchmarks. */
final class BenchNode implements AutoCloseable {
    final Path dir;
    final SluiceNode node;
    final Partition partition;
    final KeyCodec codec = new KeyCodec(16);

    BenchNode(long keys, int valueBytes) throws IOException {
        dir = Files.createTempDirectory("sluice-jmh-");
        node = Sluice.open(SluiceConfig.builder(dir).build());
        partition = node.defaultPartition();
        SplittableRandom rnd = new SplittableRandom(1);
        byte[] v = new byte[valueBytes];
        for (long i = 0; i < keys; ) {
            Batch b = new Batch();
            for (int j = 0; j < 500 && i < keys; j++, i++) {
                rnd.nextBytes(v);
                b.put(codec.key(i), v);
            }
            partition.write(b);
        }
        partition.flush();
    }

    @Override
    public void close() throws IOException {
        node.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
