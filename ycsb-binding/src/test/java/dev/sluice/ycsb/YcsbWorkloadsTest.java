package dev.sluice.ycsb;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.KeyRange;
import dev.sluice.core.KeyValue;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB's own client code (CoreWorkload, DBWrapper, ClientThread, Measurements) against the binding: load, then the
 * shipped workloads A–F on the same store, with {@code dataintegrity=true} so CoreWorkload checks every value it reads.
 * Then the store is opened directly and every record is checked field by field.
 */
class YcsbWorkloadsTest {
    static final int RECORDS = 1000;
    static final int OPERATIONS = 1000;
    static final int FIELDS = 10;
    static final int FIELD_LENGTH = 100;

    @TempDir
    Path dir;

    private Properties props(String workload) throws Exception {
        Properties p = YcsbHarness.shippedWorkload(workload);
        p.setProperty("sluice.dir", dir.toString());
        p.setProperty("sluice.partitions", "3"); // exercises routing and the merged scans of workload E
        p.setProperty("recordcount", Integer.toString(RECORDS));
        p.setProperty("operationcount", Integer.toString(OPERATIONS));
        p.setProperty("threadcount", "4");
        p.setProperty("dataintegrity", "true");
        p.setProperty("fieldcount", Integer.toString(FIELDS));
        p.setProperty("fieldlength", Integer.toString(FIELD_LENGTH));
        return p;
    }

    @Test
    void loadThenWorkloadsAThroughF() throws Exception {
        YcsbHarness.Phase load = YcsbHarness.run(props("workloada"), true);
        assertEveryOperationOk("load", load);
        assertThat(load.operations("INSERT")).isEqualTo(RECORDS);

        long inserted = 0;
        for (String w : List.of("workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf")) {
            YcsbHarness.Phase run = YcsbHarness.run(props(w), false);
            assertEveryOperationOk(w, run);

            long reads = run.operations("READ"), updates = run.operations("UPDATE"), inserts = run.operations("INSERT");
            long scans = run.operations("SCAN"), rmw = run.operations("READ-MODIFY-WRITE");
            // each read-modify-write is also one READ and one UPDATE in DBWrapper's counts
            assertThat(reads + updates + inserts + scans - rmw)
                    .as(w + ": operations")
                    .isEqualTo(OPERATIONS);
            switch (w) {
                case "workloada", "workloadb" ->
                    assertThat(List.of(reads, updates)).allMatch(n -> n > 0);
                case "workloadc" -> assertThat(reads).isEqualTo(OPERATIONS);
                case "workloadd" -> assertThat(List.of(reads, inserts)).allMatch(n -> n > 0);
                case "workloade" -> assertThat(List.of(scans, inserts)).allMatch(n -> n > 0);
                case "workloadf" -> {
                    assertThat(rmw).isPositive();
                    assertThat(updates).isEqualTo(rmw);
                }
                default -> throw new AssertionError(w);
            }
            if (reads > 0) {
                // dataintegrity: CoreWorkload compared every read's fields with the values it wrote
                assertThat(run.operations("VERIFY")).as(w + ": verified reads").isEqualTo(reads);
                assertThat(run.count("VERIFY", "Return=OK"))
                        .as(w + ": correct reads")
                        .isEqualTo(reads);
            }
            // D and E both insert keys recordcount, recordcount+1, ... (E overwrites D's with the same values)
            inserted = Math.max(inserted, inserts);
        }

        assertStoreHoldsExactlyWhatYcsbWrote(RECORDS + inserted);
    }

    /** Every measured operation returned OK: no other Return= code, no failure series, all threads did their share. */
    private static void assertEveryOperationOk(String phase, YcsbHarness.Phase p) {
        assertThat(p.opsDone()).as(phase + ": ops done per thread").isEqualTo(p.opsAssigned());
        // a failed operation is measured under "<OP>-FAILED" or "<OP>-<STATUS>": only these series may exist
        assertThat(p.measurements().keySet())
                .as(phase + ": metrics")
                .isSubsetOf("INSERT", "READ", "UPDATE", "SCAN", "DELETE", "READ-MODIFY-WRITE", "VERIFY", "CLEANUP");
        for (Map.Entry<String, Map<String, Number>> m : p.measurements().entrySet()) {
            for (Map.Entry<String, Number> e : m.getValue().entrySet()) {
                if (e.getKey().startsWith("Return=")) {
                    assertThat(e.getKey())
                            .as("%s: %s returned %s x %s", phase, m.getKey(), e.getKey(), e.getValue())
                            .isEqualTo("Return=OK");
                }
            }
            // YCSB 0.17.0 measures CLEANUP and READ-MODIFY-WRITE latency without a status (an RMW's read and update
            // report theirs under READ and UPDATE)
            if (!Set.of("CLEANUP", "READ-MODIFY-WRITE").contains(m.getKey())) {
                assertThat(p.count(m.getKey(), "Return=OK"))
                        .as(phase + ": " + m.getKey() + " OK count")
                        .isEqualTo(p.operations(m.getKey()))
                        .isPositive();
            }
        }
    }

    /** Opens the store directly and checks every record against CoreWorkload's deterministic values. */
    private void assertStoreHoldsExactlyWhatYcsbWrote(long expectedRecords) throws Exception {
        KeyNames names = new KeyNames();
        names.init(props("workloada"));
        Set<String> expectedKeys = new HashSet<>();
        for (long n = 0; n < expectedRecords; n++) {
            expectedKeys.add(names.key(n));
        }

        SluiceConfig config = SluiceConfig.builder(dir)
                .partitions(BindingProperties.partitionNames(3))
                .build();
        Set<String> found = new HashSet<>();
        List<String> wrong = new ArrayList<>();
        byte[] tablePrefix = "usertable\0".getBytes(UTF_8);
        try (SluiceNode node = Sluice.open(config)) {
            for (String partition : node.partitionNames()) {
                List<KeyValue> entries = node.partition(partition).scan(KeyRange.prefix(tablePrefix), 1_000_000);
                assertThat(entries).as("records in " + partition).isNotEmpty();
                for (KeyValue kv : entries) {
                    String key = new String(kv.key(), tablePrefix.length, kv.key().length - tablePrefix.length, UTF_8);
                    assertThat(found.add(key)).as("key %s stored once", key).isTrue();
                    LinkedHashMap<String, byte[]> fields = RecordCodec.decode(kv.value());
                    // update merged single fields into the record: all fields must still be there
                    assertThat(fields.keySet()).as("fields of " + key).hasSize(FIELDS);
                    for (int f = 0; f < FIELDS; f++) {
                        String field = "field" + f;
                        byte[] actual = fields.get(field);
                        if (actual == null
                                || !Arrays.equals(
                                        actual, deterministicValue(key, field).getBytes(UTF_8))) {
                            wrong.add(key + "/" + field);
                        }
                    }
                }
            }
        }
        assertThat(wrong).as("fields whose value differs from what YCSB wrote").isEmpty();
        assertThat(found).isEqualTo(expectedKeys);
    }

    /** CoreWorkload.buildDeterministicValue (private in YCSB 0.17.0), for fieldlengthdistribution=constant. */
    static String deterministicValue(String key, String field) {
        StringBuilder sb = new StringBuilder(FIELD_LENGTH);
        sb.append(key).append(':').append(field);
        while (sb.length() < FIELD_LENGTH) {
            sb.append(':').append(sb.toString().hashCode());
        }
        sb.setLength(FIELD_LENGTH);
        return sb.toString();
    }

    /** YCSB's own key naming (hashed insert order, zero padding), exposed. */
    static final class KeyNames extends CoreWorkload {
        String key(long n) {
            return buildKeyName(n);
        }
    }
}
