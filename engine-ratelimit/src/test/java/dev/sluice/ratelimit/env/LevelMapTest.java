package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.fileNumber;
import static dev.sluice.ratelimit.env.NativeTestSupport.fill;
import static dev.sluice.ratelimit.env.NativeTestSupport.options;
import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * The file-number → level map behind compaction classification: a listener's single-file update adds or updates one
 * entry and keeps every other file's level; the base level (rank 1) comes from the whole map.
 */
class LevelMapTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void aSingleFileUpdateKeepsTheOtherFilesLevels() {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", tmp.resolve("p"));
            env.replaceFileLevels("p", Map.of(1L, 0, 2L, 1, 3L, 1, 4L, 2, 5L, 3));
            assertThat(ranks(env, 1, 2, 3, 4, 5)).containsExactly(0, 1, 1, 2, 3);

            // a compaction into L3 creates file 6: the listener pushes that one file
            env.updateFileLevels("p", Map.of(6L, 3));
            assertThat(ranks(env, 1, 2, 3, 4, 5, 6))
                    .as("the other files keep their ranks; the base level is still L1")
                    .containsExactly(0, 1, 1, 2, 3, 3);

            // trivial moves of both L1 files to L2: the base level becomes L2 for every file of the map
            env.updateFileLevels("p", Map.of(2L, 2, 3L, 2));
            assertThat(ranks(env, 1, 2, 3, 4, 5, 6)).containsExactly(0, 1, 1, 1, 2, 2);

            // a full push replaces the map
            env.replaceFileLevels("p", Map.of(7L, 1));
            assertThat(ranks(env, 1, 2, 7)).containsExactly(-1, -1, 1);
        }
    }

    @Test
    void tableFilesDeletedByACompactionLeaveTheMap() throws Exception {
        Path dir = tmp.resolve("db");
        try (PriorityEnv env = PriorityEnv.open()) {
            env.registerPartition("p", dir);
            try (Options o = options(env, false);
                    RocksDB db = RocksDB.open(o, dir.toString());
                    FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                for (int f = 0; f < 3; f++) {
                    fill(db, f * 1000, f * 1000 + 2000, 100); // overlapping key ranges
                    db.flush(fo);
                }
                NativeTestSupport.pushLevels(env, "p", db);
                List<Long> l0 = db.getLiveFilesMetaData().stream()
                        .map(LiveFileMetaData::fileName)
                        .map(NativeTestSupport::fileNumber)
                        .toList();
                assertThat(l0).hasSize(3);
                for (long n : l0) {
                    assertThat(env.fileRank("p", n)).isZero();
                }
                db.compactRange();
                for (long n : l0) {
                    assertThat(env.fileRank("p", n)).as("deleted input %d", n).isEqualTo(-1);
                }
                long out = fileNumber(db.getLiveFilesMetaData().get(0).fileName());
                env.updateFileLevels("p", Map.of(out, 1));
                assertThat(env.fileRank("p", out)).isEqualTo(1);
            }
        }
    }

    private static List<Integer> ranks(PriorityEnv env, long... files) {
        return java.util.Arrays.stream(files)
                .mapToObj(n -> env.fileRank("p", n))
                .toList();
    }
}
