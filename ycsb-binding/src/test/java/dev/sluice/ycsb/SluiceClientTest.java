package dev.sluice.ycsb;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.KeyRange;
import dev.sluice.core.Partition;
import dev.sluice.core.Sluice;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.SluiceNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding's DB semantics against a real engine in a temp directory. */
class SluiceClientTest {
    private static final String TABLE = "usertable";

    @TempDir
    Path dir;

    private final List<SluiceClient> open = new ArrayList<>();

    @AfterEach
    void closeClients() throws DBException {
        RefusingGateProvider.refusing = false;
        for (SluiceClient c : open) {
            c.cleanup();
        }
        open.clear();
    }

    private Properties props(String... kv) {
        Properties p = new Properties();
        p.setProperty("sluice.dir", dir.toString());
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private SluiceClient client(String... kv) throws DBException {
        SluiceClient c = new SluiceClient();
        c.setProperties(props(kv));
        c.init();
        open.add(c);
        return c;
    }

    private void close(SluiceClient c) throws DBException {
        open.remove(c);
        c.cleanup();
    }

    private static Map<String, ByteIterator> values(String... kv) {
        Map<String, ByteIterator> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], new StringByteIterator(kv[i + 1]));
        }
        return m;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    private static Map<String, String> read(SluiceClient c, String key, Set<String> fields) {
        Map<String, ByteIterator> result = new HashMap<>();
        assertThat(c.read(TABLE, key, fields, result)).isEqualTo(Status.OK);
        return strings(result);
    }

    @Test
    void insertReadSubsetUpdateMergesDelete() throws DBException {
        SluiceClient c = client("sluice.partitions", "3");
        assertThat(c.insert(TABLE, "user1", values("f0", "a", "f1", "b", "f2", "c")))
                .isEqualTo(Status.OK);

        assertThat(read(c, "user1", null)).isEqualTo(Map.of("f0", "a", "f1", "b", "f2", "c"));
        assertThat(read(c, "user1", Set.of("f2", "nope"))).isEqualTo(Map.of("f2", "c"));

        assertThat(c.update(TABLE, "user1", values("f1", "B", "f3", "d"))).isEqualTo(Status.OK);
        assertThat(read(c, "user1", null)).isEqualTo(Map.of("f0", "a", "f1", "B", "f2", "c", "f3", "d"));

        assertThat(c.insert(TABLE, "user1", values("x", "only"))).isEqualTo(Status.OK); // insert replaces
        assertThat(read(c, "user1", null)).isEqualTo(Map.of("x", "only"));

        assertThat(c.delete(TABLE, "user1")).isEqualTo(Status.OK);
        assertThat(c.read(TABLE, "user1", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
        assertThat(c.delete(TABLE, "user1")).isEqualTo(Status.OK); // deleting an absent record is fine
    }

    @Test
    void updateOfAbsentRecordIsNotFoundAndCreatesNothing() throws DBException {
        SluiceClient c = client();
        assertThat(c.update(TABLE, "ghost", values("f0", "x"))).isEqualTo(Status.NOT_FOUND);
        assertThat(c.read(TABLE, "ghost", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void tablesAreSeparateKeySpaces() throws DBException {
        SluiceClient c = client();
        c.insert("t1", "k", values("f", "one"));
        c.insert("t2", "k", values("f", "two"));
        Map<String, ByteIterator> r = new HashMap<>();
        assertThat(c.read("t2", "k", null, r)).isEqualTo(Status.OK);
        assertThat(strings(r)).isEqualTo(Map.of("f", "two"));
    }

    @Test
    void scanMergesPartitionsInKeyOrderAndStopsAtTheTable() throws DBException {
        SluiceClient c = client("sluice.partitions", "4");
        for (int i = 0; i < 200; i++) {
            String key = String.format("k%03d", i);
            assertThat(c.insert(TABLE, key, values("n", Integer.toString(i), "other", "x")))
                    .isEqualTo(Status.OK);
        }
        // neighbours in key order that must not leak into usertable scans
        c.insert("usertable2", "k000", values("n", "-1"));
        c.insert("usertabl", "k999", values("n", "-2"));

        Vector<HashMap<String, ByteIterator>> result = new Vector<>();
        assertThat(c.scan(TABLE, "k050", 20, Set.of("n"), result)).isEqualTo(Status.OK);
        assertThat(result).hasSize(20);
        for (int i = 0; i < 20; i++) {
            assertThat(strings(result.get(i))).isEqualTo(Map.of("n", Integer.toString(50 + i)));
        }

        result.clear();
        assertThat(c.scan(TABLE, "k190", 50, null, result)).isEqualTo(Status.OK);
        assertThat(result).hasSize(10);
        assertThat(result.get(9).get("n").toString()).isEqualTo("199");
        assertThat(result.get(9)).containsKeys("n", "other");

        result.clear();
        assertThat(c.scan(TABLE, "k0505", 1, null, result)).isEqualTo(Status.OK); // start between keys
        assertThat(result.get(0).get("n").toString()).isEqualTo("51");

        result.clear();
        assertThat(c.scan(TABLE, "zzz", 10, null, result)).isEqualTo(Status.OK);
        assertThat(result).isEmpty();
    }

    @Test
    void recordsAreSpreadOverPartitionsAndFoundAgainAfterReopen() throws DBException {
        SluiceClient c = client("sluice.partitions", "4");
        for (int i = 0; i < 400; i++) {
            c.insert(TABLE, "user" + i, values("f", "v" + i));
        }
        close(c);

        SluiceConfig config = SluiceConfig.builder(dir)
                .partitions(BindingProperties.partitionNames(4))
                .build();
        try (SluiceNode node = Sluice.open(config)) {
            int total = 0;
            for (String name : node.partitionNames()) {
                Partition p = node.partition(name);
                int n = p.scan(KeyRange.prefix((TABLE + "\0").getBytes(UTF_8)), 10_000)
                        .size();
                assertThat(n).as("records in %s", name).isBetween(60, 140); // ~100 each
                total += n;
            }
            assertThat(total).isEqualTo(400);
            assertThat(node.partition("p0").get(SharedNode.META_KEY)).isNotNull();
        }

        SluiceClient again = client("sluice.partitions", "4");
        for (int i = 0; i < 400; i += 37) {
            assertThat(read(again, "user" + i, null)).isEqualTo(Map.of("f", "v" + i));
        }
    }

    /** Inserts one record with these properties and closes the client: the store a load leaves. */
    private void loadOne(String... kv) throws DBException {
        SluiceClient c = client(kv);
        c.insert(TABLE, "user1", values("f", "v"));
        close(c);
    }

    /** What init of a client with these properties throws (a DBException). */
    private org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> initRefused(String... kv) {
        SluiceClient wrong = new SluiceClient();
        wrong.setProperties(props(kv));
        return assertThatThrownBy(wrong::init).isInstanceOf(DBException.class);
    }

    @Test
    void changingThePartitionCountIsRefused() throws DBException {
        loadOne("sluice.partitions", "2");
        initRefused("sluice.partitions", "3")
                .hasMessageContaining("has partitions [p0, p1]")
                .hasMessageContaining("opened with [p0, p1, p2]")
                .hasMessageContaining("sluice.partitions");
        assertThat(dir.resolve("partitions/p2"))
                .as("refused before the open created it")
                .doesNotExist();
    }

    /**
     * A load with named partitions and a run with a partition count share no partition: until 2026-11-28 the run found
     * no metadata record in its first partition, took the store for a new one, created two more partitions and answered
     * every read NOT_FOUND (a CLI probe).
     */
    @Test
    void aRunWithOtherPartitionNamesThanTheLoadIsRefused() throws Exception {
        java.nio.file.Path named = dir.resolveSibling(dir.getFileName() + "-named.properties");
        java.nio.file.Files.writeString(named, "partitions = t1,t2\n");
        loadOne("sluice.config", named.toString());
        initRefused("sluice.partitions", "2")
                .hasMessageContaining("has partitions [t1, t2]")
                .hasMessageContaining("opened with [p0, p1]");
        assertThat(dir.resolve("partitions/p0")).doesNotExist();
    }

    /** The same partitions in another order would hash records to other partitions: refused by the metadata record. */
    @Test
    void theSamePartitionsInAnotherOrderAreRefused() throws Exception {
        loadOne("sluice.partitions", "2");
        java.nio.file.Path swapped = dir.resolveSibling(dir.getFileName() + "-swapped.properties");
        java.nio.file.Files.writeString(swapped, "partitions = p1,p0\n");
        initRefused("sluice.config", swapped.toString())
                .hasMessageContaining("partitions=p0,p1")
                .hasMessageContaining("partitions=p1,p0");
    }

    @Test
    void oneEngineSharedByAllClientsAndClosedByTheLast() throws Exception {
        SluiceClient a = client("sluice.partitions", "2");
        SluiceClient b = client("sluice.partitions", "2");
        a.insert(TABLE, "k", values("f", "v"));
        close(a);
        assertThat(read(b, "k", null)).isEqualTo(Map.of("f", "v")); // still open for b

        SluiceClient other = new SluiceClient();
        other.setProperties(props("sluice.partitions", "2", "sluice.sync", "true"));
        assertThatThrownBy(other::init)
                .isInstanceOf(DBException.class)
                .hasMessageContaining("one Sluice engine per JVM");

        close(b);
        // closed: RocksDB's directory lock is free, so the store opens directly
        try (SluiceNode node = Sluice.open(SluiceConfig.builder(dir)
                .partitions(BindingProperties.partitionNames(2))
                .build())) {
            assertThat(node.partitionNames()).containsExactly("p0", "p1");
        }
    }

    @Test
    void badPropertiesFailInitNamingTheProperty() {
        SluiceClient c = new SluiceClient();
        c.setProperties(props("sluice.partitions", "many"));
        assertThatThrownBy(c::init).isInstanceOf(DBException.class).hasMessageContaining("sluice.partitions = 'many'");
    }

    @Test
    void concurrentUpdatesOfOneRecordLoseNoField() throws Exception {
        int threads = 4, rounds = 300;
        List<SluiceClient> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            clients.add(client());
        }
        Map<String, ByteIterator> initial = new HashMap<>();
        for (int t = 0; t < threads; t++) {
            initial.put("f" + t, new StringByteIterator("init"));
        }
        assertThat(clients.get(0).insert(TABLE, "hot", initial)).isEqualTo(Status.OK);

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            done.add(pool.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    Status s = clients.get(id).update(TABLE, "hot", values("f" + id, "r" + r));
                    assertThat(s).isEqualTo(Status.OK);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        Map<String, String> expected = new LinkedHashMap<>();
        for (int t = 0; t < threads; t++) {
            expected.put("f" + t, "r" + (rounds - 1));
        }
        // every thread's last write survives: no update overwrote another's field with a stale value
        assertThat(read(clients.get(0), "hot", null)).isEqualTo(expected);
    }

    @Test
    void refusedByAdmissionIsServiceUnavailableAndWritesNothing() throws DBException {
        SluiceClient c = client("sluice.controls", "ycsb-test-refuse", "sluice.partitions", "2");
        assertThat(c.insert(TABLE, "a", values("f", "1"))).isEqualTo(Status.OK);

        RefusingGateProvider.refusing = true;
        assertThat(c.insert(TABLE, "b", values("f", "2"))).isEqualTo(Status.SERVICE_UNAVAILABLE);
        assertThat(c.update(TABLE, "a", values("f", "changed"))).isEqualTo(Status.SERVICE_UNAVAILABLE);
        assertThat(c.read(TABLE, "a", null, new HashMap<>())).isEqualTo(Status.SERVICE_UNAVAILABLE);
        assertThat(c.scan(TABLE, "a", 10, null, new Vector<>())).isEqualTo(Status.SERVICE_UNAVAILABLE);
        assertThat(c.delete(TABLE, "a")).isEqualTo(Status.SERVICE_UNAVAILABLE);

        RefusingGateProvider.refusing = false;
        assertThat(c.read(TABLE, "b", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
        assertThat(read(c, "a", null)).isEqualTo(Map.of("f", "1"));
    }

    @Test
    void overQuotaIsForbidden() throws DBException {
        SluiceClient c = client("sluice.controls", "ycsb-test-refuse", "sluice.control.ycsb-test-refuse.mode", "quota");
        RefusingGateProvider.refusing = true;
        assertThat(c.insert(TABLE, "a", values("f", "1"))).isEqualTo(Status.FORBIDDEN);
    }

    @Test
    void undecodableValueIsUnexpectedStateAndBadArgumentsAreBadRequest() throws DBException {
        SluiceClient c = client("sluice.partitions", "2");
        SharedNode shared =
                SharedNode.acquire(BindingProperties.toSluiceConfig(props("sluice.partitions", "2"), Path.of("")));
        try {
            byte[] key = SluiceClient.storedKey(TABLE, "raw");
            shared.partitionFor(key).put(key, "not a record".getBytes(UTF_8));
        } finally {
            shared.release();
        }
        assertThat(c.read(TABLE, "raw", null, new HashMap<>())).isEqualTo(Status.UNEXPECTED_STATE);
        assertThat(c.update(TABLE, "raw", values("f", "x"))).isEqualTo(Status.UNEXPECTED_STATE);
        assertThat(c.scan(TABLE, "raw", 1, null, new Vector<>())).isEqualTo(Status.UNEXPECTED_STATE);

        assertThat(c.insert("bad\0table", "k", values("f", "x"))).isEqualTo(Status.BAD_REQUEST);
        assertThat(c.insert("", "k", values("f", "x"))).isEqualTo(Status.BAD_REQUEST);
        assertThat(c.read(TABLE, "k".repeat(9000), null, new HashMap<>())).isEqualTo(Status.BAD_REQUEST);
    }

    @Test
    void routingHashIsFnv1a64() {
        // published FNV-1a 64 test vectors; the routing must never change (it decides where load put each record)
        assertThat(SharedNode.fnv1a64(new byte[0])).isEqualTo(0xcbf29ce484222325L);
        assertThat(SharedNode.fnv1a64("a".getBytes(UTF_8))).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(SharedNode.fnv1a64("foobar".getBytes(UTF_8))).isEqualTo(0x85944171f73967e8L);
    }
}
