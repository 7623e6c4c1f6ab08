package dev.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.metrics.LatencyStats;
import dev.sluice.bench.runner.Results;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** TenantReport's read-amplification table: per phase, the tenants' mean sorted runs, and while deferred. */
class ReadAmplificationTableTest {
    static Results.Tenant tenant(String name, String phase, Double runs, int deferredSeconds, Double deferredRuns) {
        return new Results.Tenant(
                name, phase, 100, 100, 0, 100, LatencyStats.EMPTY, 0, 0, 0, 1.0, runs, deferredSeconds, deferredRuns);
    }

    static Results.Stack stack(String name, List<Results.Tenant> tenants, Map<String, List<Integer>> stages) {
        return new Results.Stack(
                name, "", false, "p", List.of(), Map.of(), Map.of(), null, null, List.of(), null, Map.of(), Map.of(), 0,
                List.of(), tenants, Map.of(), stages);
    }

    @Test
    void deferredMeanIsWeightedByEachTenantsDeferredSecondsAndStacksWithoutDeferralHaveNoSuchColumn() {
        Results.Stack stock = stack(
                "rocksdb", List.of(tenant("t1", "bosr-3", 4.0, 0, null), tenant("t2", "bosr-3", 6.0, 0, null)), null);
        Results.Stack flex = stack(
                "flexengine",
                List.of(
                        tenant("t1", "bosr-3", 5.0, 30, 9.0), // 30 s deferred at 9 runs
                        tenant("t2", "bosr-3", 3.0, 10, 5.0)), // 10 s deferred at 5 runs
                Map.of("t1", List.of(1), "t2", List.of(0)));
        String md = TenantReport.readAmplification(List.of(stock, flex));
        assertThat(md).contains("| phase | rocksdb | flexengine | flexengine while deferred |");
        // (9·30 + 5·10) / 40 = 8.00 over 40 tenant-seconds; plain means 5.00 and 4.00
        assertThat(md).contains("| bosr-3 | 5.00 | 4.00 | 8.00 (40) |");
    }

    @Test
    void aPhaseWithoutDeferralShowsZeroDeferredSecondsAndNoRecordMeansNoTable() {
        Results.Stack flex =
                stack("flexengine", List.of(tenant("t1", "bosr-1", 2.0, 0, null)), Map.of("t1", List.of(0)));
        assertThat(TenantReport.readAmplification(List.of(flex))).contains("| bosr-1 | 2.00 | – (0) |");
        Results.Stack old = stack("rocksdb", List.of(tenant("t1", "bosr-1", null, 0, null)), null);
        assertThat(TenantReport.readAmplification(List.of(old))).isEmpty();
    }
}
