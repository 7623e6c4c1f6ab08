package dev.sluice.core;

import static dev.sluice.core.StoreOpenSafetyTest.hashes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BuiltinComparator;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.Transaction;
import org.rocksdb.TransactionDB;
import org.rocksdb.TransactionDBOptions;
import org.rocksdb.TtlDB;
import org.rocksdb.WriteOptions;

/**
 * RocksDB directories Sluice did not write, placed as a partition (found by a probe of foreign stores, 2026-11-28): those
 * written with settings a partition does not have are refused before anything is opened, naming the setting, and no
 * byte of the store changes; a plain default-column-family database opens with all its data.
 */
class ForeignStoreTest {
    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path dir;

    private interface Maker {
        void make(String path) throws Exception;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static SluiceConfig cfg(Path d, String... partitions) {
        return SluiceConfig.builder(d).env("default").partitions(partitions).build();
    }

    /** A store with partition d holding one key, and {@code maker}'s database as partition ext (not yet listed). */
    private Path storeWithForeign(Maker maker) throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir, "d"))) {
            n.partition("d").put(b("key"), b("value"), WriteMode.SYNC);
        }
        Path ext = dir.resolve("partitions/ext");
        maker.make(ext.toString());
        return ext;
    }

    /** Opening d and ext is refused with {@code type} and every fragment, and no file of the store changes. */
    private void assertRefusedUnchanged(Class<? extends Throwable> type, String... fragments) throws Exception {
        Map<String, String> before = hashes(dir);
        var t = assertThatThrownBy(() -> Sluice.open(cfg(dir, "d", "ext")))
                .isInstanceOf(type)
                .hasMessageContaining("partition 'ext'");
        for (String f : fragments) {
            t.hasMessageContaining(f);
        }
        assertThat(hashes(dir)).as("no byte of the store changed").isEqualTo(before);
        try (SluiceNode n = Sluice.open(cfg(dir, "d"))) {
            assertThat(n.partition("d").get(b("key"))).isEqualTo(b("value"));
        }
    }

    /** Puts k0…k{n-1} → v0…, and flushes them to an SST. */
    private static void putFlushed(RocksDB db, int n) throws org.rocksdb.RocksDBException {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            for (int i = 0; i < n; i++) {
                db.put(b("k" + i), b("v" + i));
            }
            db.flush(f);
        }
    }

    private static void twoFamilies(String path, boolean writeSecond) throws Exception {
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            List<ColumnFamilyDescriptor> ds = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY), new ColumnFamilyDescriptor(b("cf1")));
            List<ColumnFamilyHandle> hs = new ArrayList<>();
            try (RocksDB db = RocksDB.open(o, path, ds, hs)) {
                for (int i = 0; i < 150; i++) {
                    db.put(hs.get(0), b("k" + i), b("v" + i));
                    if (writeSecond) {
                        db.put(hs.get(1), b("c" + i), b("cv" + i)); // in the WAL only
                    }
                }
                hs.forEach(ColumnFamilyHandle::close);
            }
        }
    }

    /** RocksDB refused it in phase 2, after partition d had been opened for writing (its WAL flushed, MANIFEST rolled). */
    @Test
    void aSecondColumnFamilyIsRefusedBeforeAnyPartitionIsOpened() throws Exception {
        storeWithForeign(p -> twoFamilies(p, true));
        assertRefusedUnchanged(SluiceException.class, "column families [cf1]");
    }

    @Test
    void anEmptySecondColumnFamilyIsRefusedToo() throws Exception {
        storeWithForeign(p -> twoFamilies(p, false));
        assertRefusedUnchanged(SluiceException.class, "column families [cf1]");
    }

    /** Accepted until 2026-11-28: the first get of a merged key crashed the JVM (SIGSEGV in RocksDB's merge helper). */
    @Test
    void aDatabaseWrittenWithAMergeOperatorIsRefusedNamingIt() throws Exception {
        storeWithForeign(p -> {
            try (StringAppendOperator op = new StringAppendOperator();
                    Options o = new Options().setCreateIfMissing(true).setMergeOperator(op);
                    RocksDB db = RocksDB.open(o, p);
                    FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                putFlushed(db, 100);
                for (int i = 0; i < 100; i++) {
                    db.merge(b("k" + i), b("m" + i));
                }
                db.flush(f);
            }
        });
        assertRefusedUnchanged(SluiceException.class, "merge_operator=", "StringAppend");
    }

    /** Accepted until 2026-11-28, and every value read back with the TTL database's 4 timestamp bytes appended. */
    @Test
    void aTtlDatabaseIsRefusedNamingItsCompactionFilter() throws Exception {
        storeWithForeign(p -> {
            try (Options o = new Options().setCreateIfMissing(true);
                    TtlDB db = TtlDB.open(o, p, 3600, false)) {
                putFlushed(db, 100);
            }
        });
        assertRefusedUnchanged(SluiceException.class, "compaction_filter_factory=", "Ttl");
    }

    @Test
    void anotherComparatorIsRefusedAsASettingNotAsDamage() throws Exception {
        storeWithForeign(p -> {
            try (Options o = new Options()
                            .setCreateIfMissing(true)
                            .setComparator(BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR);
                    RocksDB db = RocksDB.open(o, p);
                    FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                db.put(b("k"), b("v"));
                db.flush(f);
            }
        });
        assertRefusedUnchanged(
                SluiceException.class,
                "comparator=rocksdb.ReverseBytewiseComparator",
                "or that OPTIONS file is damaged");
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "d", "ext"))).isNotInstanceOf(StoreCorruptedException.class);
    }

    /** RocksDB's own NotSupported, which said "corrupted … restore it from a backup" until 2026-11-28. */
    @Test
    void aTransactionDatabaseWithAPreparedTransactionIsRefusedAsASettingNotAsDamage() throws Exception {
        storeWithForeign(p -> {
            try (Options o = new Options().setCreateIfMissing(true);
                    TransactionDBOptions to = new TransactionDBOptions();
                    TransactionDB db = TransactionDB.open(o, to, p);
                    WriteOptions w = new WriteOptions()) {
                Transaction t = db.beginTransaction(w);
                t.setName("tx1");
                t.put(b("k"), b("v"));
                t.prepare();
                // closed with the transaction prepared, not committed: its WAL holds the prepare record
            }
        });
        assertRefusedUnchanged(SluiceException.class, "cannot be opened with a Sluice partition's settings");
        assertThatThrownBy(() -> Sluice.open(cfg(dir, "d", "ext"))).isNotInstanceOf(StoreCorruptedException.class);
    }

    /** A database with its WAL in another directory (RocksDB's wal_dir): its unflushed writes were lost silently. */
    @Test
    void aNeverFlushedDatabaseWhoseWalIsElsewhereIsRefused() throws Exception {
        Path walDir = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-wal"));
        storeWithForeign(p -> {
            try (Options o = new Options().setCreateIfMissing(true).setWalDir(walDir.toString());
                    RocksDB db = RocksDB.open(o, p)) {
                for (int i = 0; i < 100; i++) {
                    db.put(b("k" + i), b("v" + i));
                }
            }
        });
        assertRefusedUnchanged(StoreCorruptedException.class, "missing its write-ahead log", "never flushed");
    }

    /** Sluice's own partition, never flushed, its WAL deleted: opened empty until 2026-11-28. */
    @Test
    void aNeverFlushedPartitionWhoseWalWasDeletedIsRefused() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir, "d", "ext"))) {
            n.partition("d").put(b("key"), b("value"), WriteMode.SYNC);
            for (int i = 0; i < 100; i++) {
                n.partition("ext").put(b("k" + i), b("v" + i), WriteMode.SYNC);
            }
        }
        Path ext = dir.resolve("partitions/ext");
        try (Stream<Path> s = Files.list(ext)) {
            for (Path wal : s.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.delete(wal);
            }
        }
        assertRefusedUnchanged(StoreCorruptedException.class, "missing its write-ahead log", "never flushed");
    }

    /** The guard against false refusals: an empty partition reopened, and a plain database with data in SSTs and WAL. */
    @Test
    void aPlainDatabaseAndAFreshPartitionOpenWithAllTheirData() throws Exception {
        try (SluiceNode n = Sluice.open(cfg(dir, "fresh"))) {
            assertThat(n.partition("fresh").get(b("k"))).isNull();
        }
        try (SluiceNode n = Sluice.open(cfg(dir, "fresh"))) {
            assertThat(n.partition("fresh").get(b("k"))).isNull();
        }
        Path ext = dir.resolve("partitions/ext");
        try (Options o = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(o, ext.toString())) {
            putFlushed(db, 100);
            for (int i = 100; i < 150; i++) {
                db.put(b("k" + i), b("v" + i)); // in the WAL only
            }
        }
        try (SluiceNode n = Sluice.open(cfg(dir, "fresh", "ext"))) {
            for (int i = 0; i < 150; i++) {
                assertThat(n.partition("ext").get(b("k" + i))).as("k%d", i).isEqualTo(b("v" + i));
            }
        }
    }
}
