package dev.sluice.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The longest interval without a completed write, from explicit completion times (no clock, no sleeps). */
class WriteGapsTest {
    static final long MS = 1_000_000;

    @Test
    void longestGapIncludesPhaseEdgesAndIgnoresOutOfOrderReports() {
        WriteGaps g = new WriteGaps();
        assertThat(g.longestNanos()).isEqualTo(-1);
        g.completed(5 * MS); // before any measured segment: ignored
        g.start(1000 * MS);
        g.completed(1030 * MS); // 30 ms after the start
        g.completed(1040 * MS);
        g.completed(1500 * MS); // 460 ms stall
        g.completed(1200 * MS); // reported late by a slow worker: no gap of its own
        g.completed(1510 * MS);
        g.stop(1600 * MS); // 90 ms to the end
        assertThat(g.longestNanos()).isEqualTo(460 * MS);
        g.completed(9000 * MS); // between segments: ignored
        g.start(10_000 * MS);
        g.stop(10_700 * MS); // a measured segment with no write at all: 700 ms
        assertThat(g.longestNanos()).isEqualTo(700 * MS);
    }

    @Test
    void chainsAreReadFromRocksDbEventLogLines() {
        List<String> log = List.of(
                "2026/11/23-13:30:01.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 100, \"job\": 4, \"event\":"
                        + " \"compaction_started\", \"compaction_reason\": \"ManualCompaction\", \"files_L0\": [41],"
                        + " \"files_L1\": [30, 31, 32], \"score\": -1, \"input_data_size\": 33554432,"
                        + " \"oldest_snapshot_seqno\": -1}",
                "2026/11/23-13:30:01.500001 7f1 EVENT_LOG_v1 {\"time_micros\": 150, \"job\": 5, \"event\":"
                        + " \"compaction_started\", \"compaction_reason\": \"LevelL0FilesNum\", \"files_L0\": [44, 43,"
                        + " 42], \"score\": 1.2, \"input_data_size\": 3145728}",
                "2026/11/23-13:30:01.600001 7f1 EVENT_LOG_v1 {\"time_micros\": 160, \"job\": 6, \"event\":"
                        + " \"compaction_started\", \"compaction_reason\": \"LevelMaxLevelSize\", \"files_L1\": [30],"
                        + " \"files_L2\": [20, 21], \"score\": 1.1, \"input_data_size\": 999}",
                "2026/11/23-13:30:02.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 200, \"job\": 4, \"event\":"
                        + " \"compaction_finished\", \"compaction_time_micros\": 10, \"output_level\": 1,"
                        + " \"num_output_files\": 3}",
                "2026/11/23-13:30:02.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 210, \"job\": 5, \"event\":"
                        + " \"compaction_finished\", \"compaction_time_micros\": 10, \"output_level\": 0}",
                "2026/11/23-13:30:02.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 220, \"job\": 6, \"event\":"
                        + " \"compaction_finished\", \"output_level\": 2}",
                "2026/11/23-13:30:03.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 900, \"job\": 7, \"event\":"
                        + " \"compaction_started\", \"files_L0\": [50], \"files_L6\": [1], \"input_data_size\": 10}",
                "2026/11/23-13:30:03.000001 7f1 EVENT_LOG_v1 {\"time_micros\": 950, \"job\": 7, \"event\":"
                        + " \"compaction_finished\", \"output_level\": 6}");
        // job 4: an L0->L1 chain step of 4 files; job 5 is intra-L0, job 6 reads no L0; job 7 is outside the range
        List<CompactionChains.Step> steps = CompactionChains.parse(log, List.of(new long[] {0, 500}));
        assertThat(steps).containsExactly(new CompactionChains.Step(100, 4, 33554432, 1));
        assertThat(CompactionChains.parse(log, List.of(new long[] {0, 1000}))).hasSize(2);

        Results.Chains c = CompactionChains.summarize(CompactionChains.parse(log, List.of(new long[] {0, 1000})));
        assertThat(c.compactions()).isEqualTo(2);
        assertThat(c.maxFiles()).isEqualTo(4);
        assertThat(c.filesHistogram()).containsEntry("2", 1L).containsEntry("4", 1L);
        assertThat(c.bytesHistogramMiB()).containsEntry("1", 1L).containsEntry("32", 1L);
        assertThat(CompactionChains.summarize(List.of())).isNull();
    }
}
