package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads of a store with a damaged data block (real RocksDB): a key in that block must fail with the corruption named,
 * on get and on multiGet alike. rocksdbjni's multiGetAsList answers null for a key it could not read, so before the
 * fix multiGet (and the server's MGET, EXISTS and DEL built on it) reported stored keys as missing.
 */
class CorruptBlockReadTest {
    @TempDir
    Path dir;

    private static final int KEYS = 2_000;

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[1024];
        new Random(i).nextBytes(v); // incompressible: the SST holds hundreds of data blocks
        return v;
    }

    private static SluiceConfig cfg(Path d) {
        return SluiceConfig.builder(d).env("default").partitions("default").build();
    }

    private Path onlySst() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("partitions/default"))) {
            List<Path> ssts = s.filter(p -> p.toString().endsWith(".sst")).toList();
            assertThat(ssts).as("one flushed SST").hasSize(1);
            return ssts.get(0);
        }
    }

    @Test
    void aKeyInADamagedBlockFailsOnMultiGetAsOnGetInsteadOfReadingAsMissing() throws IOException {
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            for (int i = 0; i < KEYS; i++) {
                n.defaultPartition().put(key(i), value(i), WriteMode.SYNC);
            }
            n.defaultPartition().flush();
        }
        Path sst = onlySst();
        try (RandomAccessFile f = new RandomAccessFile(sst.toFile(), "rw")) {
            long middle = f.length() / 2; // inside the data blocks, far from the footer and the index
            byte[] junk = new byte[200];
            f.seek(middle);
            f.readFully(junk);
            for (int i = 0; i < junk.length; i++) {
                junk[i] ^= (byte) 0x5a;
            }
            f.seek(middle);
            f.write(junk);
        }
        try (SluiceNode n = Sluice.open(cfg(dir))) {
            Partition p = n.defaultPartition();
            List<Integer> damaged = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                try {
                    assertThat(p.get(key(i))).as("key %d", i).isEqualTo(value(i));
                } catch (SluiceException e) {
                    assertThat(e).hasMessageContaining("Corruption");
                    damaged.add(i);
                }
            }
            assertThat(damaged).as("keys in the damaged block(s)").isNotEmpty().hasSizeLessThan(KEYS / 4);
            int bad = damaged.get(0);
            assertThatThrownBy(() -> p.multiGet(List.of(key(0 == bad ? 1 : 0), key(bad))))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("multiGet")
                    .hasMessageContaining("Corruption");
            // keys outside the damaged block still read through multiGet, and a missing key is still null
            int good = damaged.contains(KEYS - 1) ? 0 : KEYS - 1;
            List<byte[]> values = p.multiGet(List.of(key(good), "absent".getBytes(StandardCharsets.UTF_8)));
            assertThat(values.get(0)).isEqualTo(value(good));
            assertThat(values.get(1)).isNull();
        }
    }
}
