package dev.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.ratelimit.env.FaultRule;
import dev.sluice.ratelimit.env.PriorityEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One transient read error during a multiGet: the stored value comes back (the confirming get, on the same snapshot,
 * reads it), never "absent". Until 2026-11-28 the multiGet kept RocksDB's null for the key it could not read, and with
 * the Calcspar cache that null was cached and served after the error was gone (fault-injection probe). Real RocksDB on
 * the priority Env, whose fault rule fails exactly one SST read of a user get with EIO; no block cache, so the read
 * goes to the file.
 */
class TransientReadErrorE2eTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"test-hooks", "test-hooks,calcspar-cache"})
    void aMultiGetMeetingOneReadErrorReturnsTheStoredValue(String controls) {
        String partition = "transient" + (controls.contains("calcspar") ? "-cached" : "");
        SluiceConfig cfg = SluiceConfig.builder(dir)
                .partitions(partition)
                .env("priority")
                .blockCacheBytes(0)
                .controls(List.of(controls.split(",")))
                .build();
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.partition(partition);
            for (int i = 0; i < 2000; i++) {
                p.put(key(i), value(i));
            }
            p.flush();
        }
        try (SluiceNode node = Sluice.open(cfg)) {
            Partition p = node.partition(partition);
            PriorityEnv env = NodeHooks.ENVS.get(partition);
            int rule = env.faults()
                    .inject(FaultRule.eio(EnumSet.of(IoClass.USER_GET), EnumSet.of(FaultRule.Op.READ))
                            .withFileKinds(EnumSet.of(FaultRule.FileKind.SST))
                            .maxFaults(1));
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 2000; i += 97) {
                keys.add(key(i));
            }
            List<byte[]> first = p.multiGet(keys);
            assertThat(env.faults().hits(rule))
                    .as("the multiGet met the read error")
                    .isEqualTo(1);
            for (int j = 0; j < keys.size(); j++) {
                assertThat(first.get(j)).as("key %d, first multiGet", j * 97).isEqualTo(value(j * 97));
            }
            List<byte[]> again = p.multiGet(keys); // with the cache: served from it now
            for (int j = 0; j < keys.size(); j++) {
                assertThat(again.get(j)).as("key %d, second multiGet", j * 97).isEqualTo(value(j * 97));
                assertThat(p.get(keys.get(j))).as("key %d, get", j * 97).isEqualTo(value(j * 97));
            }
        }
    }
}
