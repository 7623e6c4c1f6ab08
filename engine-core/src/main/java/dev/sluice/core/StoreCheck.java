package dev.sluice.core;

import dev.sluice.core.spi.Profile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileReader;
import org.rocksdb.SstFileReaderIterator;

/**
 * Read-only checks run on every configured partition <em>before</em> the node opens or creates anything, so that a
 * refused open leaves the store byte-for-byte unchanged (info LOGs included) and creates nothing.
 *
 * <p><b>Partition states.</b> No directory: absent (created later). A directory without {@code CURRENT} holding only
 * what RocksDB 9.10 writes while it creates a DB, before {@code CURRENT} ({@code LOCK}, info {@code LOG*},
 * {@code IDENTITY}, {@code *.dbtmp}, {@code MANIFEST-000001}): an interrupted creation, cleared and created again. A
 * directory without {@code CURRENT} holding anything else (a WAL, an SST, an OPTIONS file...) may hold data: refused.
 *
 * <p><b>Existing partitions</b> are checked in this order, all without writing: (1) the partition's {@code LOCK} is not
 * held by another process or another RocksDB handle in this JVM (read from {@code /proc/locks}; probing with a lock of
 * our own would release RocksDB's fcntl lock when closed, if this process held it); (2) the WALs ({@link WalCheck});
 * (3) RocksDB opens it read-only (which purges nothing and, with a silent logger, writes no info LOG) with
 * {@code track_and_verify_wals_in_manifest}, so a missing MANIFEST, a MANIFEST that does not parse, or a WAL the MANIFEST
 * tracks but that is gone, is refused; (4) every SST file in the directory is either in the recovered version or a
 * crash orphan whose every key is still readable in the recovered state (see {@link #checkOrphans}).
 */
final class StoreCheck {
    private StoreCheck() {}

    enum State {
        ABSENT,
        INTERRUPTED_CREATION,
        EXISTING
    }

    /** How a configured partition's directory looks; throws when it has no CURRENT but may hold data. */
    static State classify(String name, Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return State.ABSENT;
        }
        if (!Files.isDirectory(dir)) {
            throw new StoreCorruptedException(
                    "partition '" + name + "' at " + dir + " is a file, not a directory; Sluice did not touch it");
        }
        if (Files.exists(dir.resolve("CURRENT"))) {
            return State.EXISTING;
        }
        List<String> other = new ArrayList<>();
        for (String n : list(dir)) {
            if (!isCreationLeftover(n)) {
                other.add(n);
            }
        }
        if (other.isEmpty()) {
            return State.INTERRUPTED_CREATION;
        }
        throw new StoreCorruptedException("partition '" + name + "' at " + dir + " has files but no CURRENT file ("
                + String.join(", ", other.subList(0, Math.min(5, other.size())))
                + (other.size() > 5 ? ", ..." : "")
                + "): it is not a RocksDB store or is damaged, and may hold data; Sluice did not touch it");
    }

    /** What RocksDB's DB::Open(create_if_missing) writes before CURRENT exists. */
    static boolean isCreationLeftover(String n) {
        return n.equals("LOCK")
                || n.equals("LOG")
                || n.startsWith("LOG.old.")
                || n.equals("IDENTITY")
                || n.endsWith(".dbtmp")
                || n.equals("MANIFEST-000001");
    }

    /** Deletes the leftovers of an interrupted creation (only names {@link #isCreationLeftover} accepts). */
    static List<String> clearCreationLeftovers(Path dir) throws IOException {
        List<String> removed = new ArrayList<>();
        for (String n : list(dir)) {
            if (!isCreationLeftover(n)) {
                throw new StoreCorruptedException(dir + " changed while opening: unexpected file " + n);
            }
            Files.delete(dir.resolve(n));
            removed.add(n);
        }
        return removed;
    }

    /** Every check of an existing partition; throws {@link StoreCorruptedException} or {@link SluiceException}. */
    static void checkExisting(String name, Path dir, Profile profile) throws IOException {
        checkWritable(name, dir);
        Path lock = dir.resolve("LOCK");
        if (Files.exists(lock, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(lock)) { // a symbolic link to a regular file is one
                throw new SluiceException("partition '" + name + "' at " + dir + ": its LOCK is not a regular file"
                        + " (RocksDB locks the partition through it); move it away, RocksDB creates it again. Sluice"
                        + " opened nothing");
            }
            if (!Files.isWritable(lock)) { // RocksDB opens it for writing
                throw new SluiceException("partition '" + name + "' at " + dir + ": its LOCK is not writable by this"
                        + " process (owner or permissions); Sluice opened nothing");
            }
        }
        List<String> misplaced = new ArrayList<>();
        for (String n : list(dir)) {
            if (n.endsWith(".log") && !Files.isRegularFile(dir.resolve(n))) {
                misplaced.add(n);
            }
        }
        if (!misplaced.isEmpty()) { // not damage: restoring a backup would be the wrong advice
            throw new SluiceException("partition '" + name + "' at " + dir + ": " + misplaced + " named like a"
                    + " write-ahead log but not a regular file (a directory, a FIFO, a broken link); move it away."
                    + " Sluice opened nothing");
        }
        Optional<String> holder = lockHolder(lock);
        if (holder.isPresent()) {
            throw new SluiceException("partition '" + name + "' at " + dir + " is already open (its LOCK is held by "
                    + holder.get() + "); Sluice opened nothing");
        }
        checkWrittenForSluice(name, dir);
        List<String> walProblems = WalCheck.check(dir);
        if (!walProblems.isEmpty()) {
            throw new StoreCorruptedException("partition '" + name + "' at " + dir + ": write-ahead log "
                    + String.join("; ", walProblems) + ". Sluice did not open or change it. Restore it from a"
                    + " backup, or salvage what precedes the damage with RocksDB's ldb tool.");
        }
        checkRecoverable(name, dir, profile);
    }

    /**
     * Refuses a RocksDB directory written with settings a Sluice partition does not have — one created by another
     * program and placed under {@code partitions/}, or restored from another system — before anything is opened: column
     * families besides the default one, a merge operator, a compaction filter (a TTL database's among them) or another
     * comparator. Found by a probe of foreign stores (2026-11-28): with a second column family the refusal came from
     * RocksDB in phase 2, after the other partitions had been opened for writing (their WALs flushed, MANIFESTs rolled);
     * merge records were accepted and then crashed the JVM in a read (SIGSEGV in RocksDB's merge helper) or stopped
     * writes at the first compaction; a TTL database's values came back with its 4-byte timestamps appended. The column
     * families come from the MANIFEST; the rest from the newest OPTIONS file, which RocksDB writes at every open (none:
     * nothing to check here). A MANIFEST that cannot be read is left to {@link #checkRecoverable}, which names the damage.
     */
    static void checkWrittenForSluice(String name, Path dir) throws IOException {
        if (!Files.exists(dir.resolve("CURRENT"))) {
            return; // an interrupted creation, or damage: the checks after this one name it
        }
        List<String> families = List.of();
        try (Options o = new Options()) {
            families = RocksDB.listColumnFamilies(o, dir.toString()).stream()
                    .map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8))
                    .toList();
        } catch (RocksDBException e) {
            // not readable: checkRecoverable reports it
        }
        List<String> others =
                families.stream().filter(f -> !f.equals("default")).toList();
        if (!others.isEmpty()) {
            throw new SluiceException("partition '" + name + "' at " + dir + " holds column families " + others
                    + " besides 'default': it was not written by Sluice, whose partitions use the default column family"
                    + " only, and opening it would leave their data unread and their WAL records unreplayed. Sluice"
                    + " opened nothing; open it with RocksDB itself, or copy its data into a partition.");
        }
        Map<String, String> options = newestOptions(dir);
        List<String> foreign = new ArrayList<>();
        for (String key : List.of("merge_operator", "compaction_filter", "compaction_filter_factory")) {
            String v = options.get(key);
            if (v != null && !v.isEmpty() && !v.equals("nullptr")) {
                foreign.add(key + "=" + v);
            }
        }
        String comparator = options.get("comparator");
        if (comparator != null && !comparator.equals("leveldb.BytewiseComparator")) {
            foreign.add("comparator=" + comparator);
        }
        if (!foreign.isEmpty()) {
            throw new SluiceException("partition '" + name + "' at " + dir + " was written with " + foreign
                    + " (its newest OPTIONS file), which a Sluice partition does not have: opened without "
                    + (foreign.size() == 1 ? "it" : "them") + ", its data would read wrong (merge records unmerged,"
                    + " a TTL database's timestamps in the values, keys out of order) or stop its writes. Either it was"
                    + " not written by Sluice (open it with RocksDB and those settings, or copy its data into a"
                    + " partition), or that OPTIONS file is damaged (a Sluice partition's names"
                    + " comparator=leveldb.BytewiseComparator and none of the others: restore it from a backup, or"
                    + " move it away: this check then reads the one before it, and the open writes a new one); Sluice"
                    + " opened nothing.");
        }
    }

    /**
     * The default column family's options in the newest {@code OPTIONS-<n>} file of {@code dir} ({@code key → value},
     * trimmed); empty when there is none or it cannot be read.
     */
    static Map<String, String> newestOptions(Path dir) throws IOException {
        Path newest = null;
        long number = -1;
        for (String n : list(dir)) {
            if (n.startsWith("OPTIONS-") && !n.endsWith(".dbtmp")) {
                try {
                    long k = Long.parseLong(n.substring("OPTIONS-".length()));
                    if (k > number) {
                        number = k;
                        newest = dir.resolve(n);
                    }
                } catch (NumberFormatException e) {
                    // not RocksDB's
                }
            }
        }
        Map<String, String> m = new java.util.HashMap<>();
        if (newest == null || !Files.isRegularFile(newest)) {
            return m;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(newest, java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.nio.charset.MalformedInputException e) {
            return m; // not an OPTIONS file RocksDB wrote
        } catch (IOException e) {
            return m; // unreadable (permissions): RocksDB's read-only open after this names the problem
        }
        boolean inDefault = false;
        for (String line : lines) {
            String t = line.trim();
            if (t.startsWith("[")) {
                inDefault = t.equals("[CFOptions \"default\"]");
                continue;
            }
            int eq = t.indexOf('=');
            if (inDefault && eq > 0 && !t.startsWith("#")) {
                m.put(t.substring(0, eq).trim(), t.substring(eq + 1).trim());
            }
        }
        return m;
    }

    /**
     * Refuses a partition directory RocksDB could not write (opening writes a new MANIFEST, WAL, CURRENT and LOG there).
     * Phase 2 of the open opens partitions one after another, so a partition refused there would come after others
     * had been opened for writing and changed (their WALs flushed, MANIFESTs rolled) — a refused open must change
     * nothing (found by a damaged-store probe, 2026-11-28: a read-only second partition). For a partition that does not
     * exist yet, its nearest existing ancestor must be writable.
     */
    static void checkWritable(String name, Path dir) {
        if (Files.isSymbolicLink(dir) && !Files.exists(dir)) {
            throw new SluiceException("partition '" + name + "' at " + dir + " is a symbolic link to nothing ("
                    + readLink(dir) + "); Sluice opened nothing");
        }
        Path d = dir;
        while (d != null && !Files.exists(d)) {
            d = d.getParent();
        }
        if (d != null && !Files.isWritable(d)) {
            throw new SluiceException(
                    "partition '" + name + "' at " + dir + ": " + (d.equals(dir) ? "the directory" : d)
                            + " is not writable by this process (read-only file system, or its permissions); Sluice opened"
                            + " nothing");
        }
        if (d != null && d.equals(dir) && ROOT) {
            // An immutable file (chattr +i) cannot be replaced, renamed or deleted even by root, and the open replaces
            // CURRENT, rotates LOG and deletes flushed WALs: a probe (2026-11-29) with an immutable CURRENT in the
            // second partition had the first opened and rewritten before the refusal. For root, a file it cannot
            // write is exactly that (permission bits do not bind it); for other users, bits without the write bit do
            // not stop RocksDB's renames in a writable directory, so only root can tell this way.
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.isWritable(f)) {
                        throw new SluiceException("partition '" + name + "' at " + dir + ": " + f.getFileName()
                                + " cannot be changed (an immutable file, chattr +i, or a read-only mount), and the"
                                + " open replaces or deletes RocksDB's files; Sluice opened nothing");
                    }
                }
            } catch (IOException e) {
                throw new SluiceException("partition '" + name + "' at " + dir + ": cannot list it: " + e, e);
            }
        }
    }

    /** Whether this process runs as root (uid 0), for which {@link Files#isWritable} ignores permission bits. */
    private static final boolean ROOT = isRoot();

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    // ---- RocksDB options shared by the check and the real open ----

    /**
     * New Options with {@code track_and_verify_wals_in_manifest} (not settable through the Java API of 9.10): the
     * MANIFEST records each WAL's synced size, and an open refuses a tracked WAL that is missing or shorter.
     */
    static Options newOptions() {
        Properties p = new Properties();
        p.setProperty("track_and_verify_wals_in_manifest", "true");
        try (DBOptions db = DBOptions.getDBOptionsFromProps(p);
                ColumnFamilyOptions cf = new ColumnFamilyOptions()) {
            if (db == null) {
                throw new IllegalStateException("RocksDB refused track_and_verify_wals_in_manifest");
            }
            return new Options(db, cf);
        }
    }

    /** Drops RocksDB's info log messages: a read-only check must not create or rotate the partition's LOG. */
    private static final class SilentLogger extends org.rocksdb.Logger {
        SilentLogger() {
            super(InfoLogLevel.HEADER_LEVEL);
        }

        @Override
        protected void log(InfoLogLevel level, String msg) {}
    }

    private static void checkRecoverable(String name, Path dir, Profile profile) throws IOException {
        try (Options options = newOptions();
                SilentLogger logger = new SilentLogger()) {
            BlockBasedTableConfig table = new BlockBasedTableConfig();
            profile.apply(options, table);
            table.setNoBlockCache(true);
            options.setTableFormatConfig(table)
                    .setLogger(logger)
                    .setCreateIfMissing(false)
                    .setWalRecoveryMode(org.rocksdb.WALRecoveryMode.PointInTimeRecovery)
                    .setParanoidChecks(true);
            try (RocksDB ro = RocksDB.openReadOnly(options, dir.toString())) {
                checkLiveWal(name, dir, ro);
                Set<String> live = new TreeSet<>();
                for (LiveFileMetaData f : ro.getLiveFilesMetaData()) {
                    live.add(Path.of(f.fileName()).getFileName().toString());
                }
                Set<Long> deleted = null;
                SequenceCoverage sequences = null;
                for (String n : list(dir)) {
                    if (n.endsWith(".sst") && !live.contains(n)) {
                        if (deleted == null) {
                            deleted = ManifestEdits.deletedFiles(dir);
                        }
                        if (deleted.contains(fileNumber(n))) {
                            org.slf4j.LoggerFactory.getLogger(StoreCheck.class)
                                    .info(
                                            "partition '{}': {} is an input of a committed compaction that a crash left"
                                                    + " on disk (the MANIFEST records its deletion); RocksDB deletes it"
                                                    + " at open",
                                            name,
                                            n);
                            continue;
                        }
                        if (sequences == null) {
                            sequences = SequenceCoverage.of(dir);
                        }
                        checkOrphanSequences(name, dir, n, sequences);
                        checkOrphan(name, dir, n, ro, options);
                    }
                }
                checkCleanClose(name, dir, ro); // after the orphans: a lost flush edit is named by its SST there
            } catch (RocksDBException e) {
                String why = RocksPartition.describe(e);
                if (why.contains("Permission denied") || why.contains("Read-only file system")) {
                    // not damage: a restore from a backup would be the wrong advice
                    throw new SluiceException(
                            "partition '" + name + "' at " + dir + " cannot be read by this process (" + why
                                    + "); fix the files' owner or permissions. Sluice did not open or change it.",
                            e);
                }
                org.rocksdb.Status.Code code =
                        e.getStatus() == null ? null : e.getStatus().getCode();
                if (code == org.rocksdb.Status.Code.InvalidArgument || code == org.rocksdb.Status.Code.NotSupported) {
                    // settings, not damage: another comparator, more levels than num_levels, a TransactionDB's WAL
                    throw new SluiceException(
                            "partition '" + name + "' at " + dir + " cannot be opened with a Sluice partition's"
                                    + " settings (" + why + "): it was written by another program or with other"
                                    + " RocksDB options. Sluice did not open or change it.",
                            e);
                }
                throw new StoreCorruptedException(
                        "partition '" + name + "' at " + dir + " is corrupted (" + why
                                + "); Sluice did not open or change it. Restore it from a backup or inspect it with"
                                + " RocksDB's ldb tool.",
                        e);
            }
        }
    }

    /**
     * The live WAL is not tracked in the MANIFEST by RocksDB 9.10 (only closed ones are), so deleting it — and the
     * acknowledged writes not yet flushed in it — goes unnoticed by RocksDB. The recovered version's minimum log number
     * to keep, L, names the oldest WAL that may hold unflushed writes; RocksDB creates the live WAL (numbered L or above)
     * before it records L, and never deletes it. So no WAL numbered L or above on disk means one was removed: refused.
     */
    private static void checkLiveWal(String name, Path dir, RocksDB ro) throws RocksDBException, IOException {
        String prop = ro.getProperty("rocksdb.min-log-number-to-keep");
        long min;
        try {
            min = Long.parseLong(prop.trim());
        } catch (NumberFormatException | NullPointerException e) {
            return; // not known: nothing to check
        }
        long newest = -1;
        for (String n : list(dir)) {
            if (n.endsWith(".log") && n.length() > 4) {
                try {
                    newest = Math.max(newest, Long.parseLong(n.substring(0, n.length() - 4)));
                } catch (NumberFormatException e) {
                    // not a WAL name
                }
            }
        }
        if (min <= 0) {
            // Never flushed: every write it holds is in the WAL that its last open created (RocksDB writes the OPTIONS
            // file after that, at the end of a completed open). Without any WAL, a completed open's writes are gone:
            // until 2026-11-28 such a partition opened empty (a probe: 100 acknowledged SYNC writes, WAL deleted). An
            // open interrupted before it wrote OPTIONS had no WAL yet and held no writes: it opens.
            if (newest < 0 && !newestOptions(dir).isEmpty()) {
                throw new StoreCorruptedException("partition '" + name + "' at " + dir
                        + " is missing its write-ahead log: it was never flushed, so its writes are all in its WAL,"
                        + " and there is no WAL. Opening would silently lose acknowledged writes; Sluice did not open or"
                        + " change it. Put the WAL back (RocksDB's wal_dir, if it was written with one, is not"
                        + " supported), or, if the partition held nothing, remove its directory.");
            }
            return;
        }
        if (newest < min) {
            throw new StoreCorruptedException("partition '" + name + "' at " + dir
                    + " is missing its write-ahead log: the MANIFEST says WALs numbered " + min
                    + " and above hold writes not yet flushed, but "
                    + (newest < 0 ? "there is no WAL" : "the newest WAL is " + newest)
                    + ". Opening would silently lose acknowledged writes; Sluice did not open or change it. Put the WAL"
                    + " back or restore the partition from a backup.");
        }
    }

    /**
     * After a clean close every acknowledged write was synced, so the recovered state must reach the sequence number the
     * close recorded ({@link CleanClose}); short of it, a WAL was truncated or replaced since, and RocksDB would open
     * the shorter history without a word.
     */
    private static void checkCleanClose(String name, Path dir, RocksDB ro) throws IOException {
        OptionalLong recorded = CleanClose.read(name, dir);
        if (recorded.isEmpty()) {
            return;
        }
        long recovered = ro.getLatestSequenceNumber();
        if (recovered < recorded.getAsLong()) {
            throw new StoreCorruptedException("partition '" + name + "' at " + dir
                    + " lost acknowledged writes: it was closed cleanly with its writes up to sequence number "
                    + recorded.getAsLong() + " synced, but its WALs and tables now hold writes up to "
                    + recovered + " only (" + (recorded.getAsLong() - recovered) + " missing: a write-ahead log was"
                    + " truncated, replaced or deleted since). Sluice did not open or change it. Put the WAL back or"
                    + " restore the partition from a backup; to open it with the loss, delete "
                    + dir.resolve(CleanClose.FILE) + ".");
        }
    }

    /**
     * An SST file the recovered version does not list. RocksDB would delete it at open. That is right for the output of
     * a flush or compaction cut short by a crash (its edit never reached the MANIFEST; the data is still in the WAL or in
     * the compaction's inputs), and wrong when the MANIFEST lost committed edits (truncated or torn by damage): then the
     * file may be the only copy of acknowledged data.
     *
     * <p>The rule: the orphan is a crash leftover when every (key, value) it holds is also somewhere RocksDB keeps:
     * the value the recovered state reads (read-only, WALs replayed), the value a live SST holds for the key (a
     * compaction's output holds, for each key, the newest value among its inputs, which are still live; maybe shadowed
     * since by a newer write or tombstone), or a put in a WAL on disk (a flush's source WAL is deleted only after the
     * flush's edit is in the MANIFEST). Otherwise the open is refused, naming the file: the MANIFEST lost a committed
     * flush, and the file holds the only copy of those values. Values are compared, not just keys, so an updated key
     * whose newest value was only in the lost file is caught too. (Sluice writes no merges and sets no compaction
     * filter, which could make a compaction's output differ from its inputs.)
     *
     * <p>An orphan the MANIFEST records as deleted ({@link ManifestEdits}) is not checked at all: it is the input of a
     * committed compaction that a {@code kill -9} left on disk before RocksDB unlinked it, and its values may be older
     * versions that no live file holds any more. Until 2026-11-28 such a file failed the value rule above, and the store
     * never opened again (a crash-loop probe: 1 kill in about 100).
     *
     * <p>An orphan that does not open as a table at all (empty, shorter than a footer, no table magic number at its end)
     * is a crash leftover too, whatever it holds: RocksDB writes a table to its end and syncs it before the edit that
     * adds it reaches the MANIFEST, so an incomplete table was never committed, and its data is still in the WAL or in
     * the compaction's inputs. Until 2026-11-26 such a file failed the check, and a {@code kill -9} during a flush or a
     * compaction left a store that never opened again (a hostile-client crash loop: 3 of 30 kills).
     */
    private static void checkOrphan(String name, Path dir, String file, RocksDB ro, Options options)
            throws IOException {
        long keys = 0;
        long missing = 0;
        byte[] firstMissing = null;
        Coverage coverage = null;
        try (SstFileReader reader = new SstFileReader(options)) {
            try {
                reader.open(dir.resolve(file).toString());
            } catch (RocksDBException incomplete) {
                org.slf4j.LoggerFactory.getLogger(StoreCheck.class)
                        .warn(
                                "partition '{}': {} is not in the recovered MANIFEST and is not a complete table ({});"
                                        + " it is the output of a flush or compaction cut short, and RocksDB deletes"
                                        + " it at open",
                                name,
                                file,
                                RocksPartition.describe(incomplete));
                return;
            }
            try (ReadOptions r = new ReadOptions().setVerifyChecksums(true);
                    SstFileReaderIterator it = reader.newIterator(r);
                    ReadOptions dbRead = new ReadOptions();
                    RocksIterator db = ro.newIterator(dbRead)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    keys++;
                    byte[] k = it.key();
                    db.seek(k);
                    byte[] v = it.value();
                    if (db.isValid()
                            && java.util.Arrays.equals(db.key(), k)
                            && java.util.Arrays.equals(db.value(), v)) {
                        continue;
                    }
                    if (coverage == null) {
                        coverage = new Coverage(dir, ro, options);
                    }
                    if (!coverage.covers(k, v)) {
                        missing++;
                        if (firstMissing == null) {
                            firstMissing = k;
                        }
                    }
                }
                it.status();
                db.status();
            }
        } catch (RocksDBException e) {
            throw new StoreCorruptedException(
                    "partition '" + name + "' at " + dir + ": " + file + " is not in the recovered MANIFEST and cannot"
                            + " be read (" + RocksPartition.describe(e) + "); Sluice did not open or change it",
                    e);
        } finally {
            if (coverage != null) {
                coverage.close();
            }
        }
        boolean unparsed = coverage != null && coverage.walUnknown;
        if (missing > 0) {
            throw new StoreCorruptedException("partition '" + name + "' at " + dir + ": " + file
                    + " is not in the version recovered from the MANIFEST, and " + missing + " of its " + keys
                    + " keys (first: " + printable(firstMissing)
                    + ") have a value in no live SST and no WAL: the MANIFEST lost"
                    + " committed edits (truncated or damaged), and opening would delete that data. Sluice did not"
                    + " open or change it. Restore the partition from a backup."
                    + (unparsed
                            ? " (Some WAL records hold entry types Sluice does not parse, or are batches over 256 MiB it does not read.)"
                            : ""));
        }
    }

    /**
     * The first rule for an orphan, by sequence numbers: every write an SST holds that is numbered above the MANIFEST's
     * last sequence ({@link ManifestEdits#lastSequence}) was made after the last edit that survives, so it must also be
     * in a WAL RocksDB replays — the output of a flush cut short by a crash is (its WAL is deleted only once the flush's
     * edit is in the MANIFEST), and a compaction's output holds only writes of its inputs, all older than the edit that
     * made them live. A write numbered above it that no replayed WAL holds means the MANIFEST lost a committed flush,
     * whose WAL was deleted: the orphan is the only copy. This catches what the value rule of {@link #checkOrphan}
     * cannot see: deletions (an SST iterator hides them, so a lost flush of deletes looked empty and the deleted keys
     * came back), and values equal to an older, overwritten version still in a live SST (damaged-store probe,
     * 2026-11-28). The orphan's largest sequence number comes from its properties block ({@link SstProperties}); an
     * SST that does not give it, or a MANIFEST or WAL this reader cannot fully read, leaves the value rule alone.
     */
    private static void checkOrphanSequences(String name, Path dir, String file, SequenceCoverage sequences) {
        if (sequences.manifestLast() < 0) {
            return;
        }
        OptionalLong largest = SstProperties.largestSeqno(dir.resolve(file));
        if (largest.isEmpty() || largest.getAsLong() <= sequences.manifestLast()) {
            return;
        }
        long missing = sequences.firstNotInWal(sequences.manifestLast() + 1, largest.getAsLong());
        if (missing >= 0) {
            throw new StoreCorruptedException("partition '" + name + "' at " + dir + ": " + file
                    + " is not in the version recovered from the MANIFEST, and holds writes numbered up to "
                    + largest.getAsLong() + " while the MANIFEST accounts for writes up to "
                    + sequences.manifestLast() + " only and no WAL holds write " + missing
                    + ": the MANIFEST lost a committed flush (truncated or damaged), and opening would delete the only"
                    + " copy of those writes (deletions among them would be undone). Sluice did not open or change it."
                    + " Restore the partition from a backup.");
        }
    }

    /**
     * The MANIFEST's last sequence and the sequence numbers the replayed WALs hold (each intact record's {@code [seq,
     * seq + count)} from its WriteBatch header), for {@link #checkOrphanSequences}.
     */
    private record SequenceCoverage(long manifestLast, java.util.NavigableMap<Long, Long> walRanges) {
        static SequenceCoverage of(Path dir) throws IOException {
            long last = ManifestEdits.lastSequence(dir);
            java.util.TreeMap<Long, Long> ranges = new java.util.TreeMap<>(); // first seq -> last seq
            if (last >= 0) {
                long replayed = ManifestEdits.liveWalFloor(dir);
                java.util.function.Consumer<byte[]> add = batch -> {
                    if (batch.length >= 12) {
                        ByteBuffer h = ByteBuffer.wrap(batch, 0, 12).order(ByteOrder.LITTLE_ENDIAN);
                        long seq = h.getLong();
                        long count = h.getInt() & 0xFFFFFFFFL;
                        if (count > 0) {
                            ranges.merge(seq, seq + count - 1, Math::max);
                        }
                    }
                };
                for (String n : list(dir)) {
                    if (n.endsWith(".log") && WalCheck.walNumber(dir.resolve(n)) >= replayed) {
                        WalCheck.forEachRecord(dir.resolve(n), add, add);
                    }
                }
            }
            return new SequenceCoverage(last, ranges);
        }

        /** The first sequence number in {@code [from, to]} no replayed WAL record holds, or -1 when they all are. */
        long firstNotInWal(long from, long to) {
            long next = from;
            for (Map.Entry<Long, Long> r : walRanges.headMap(to, true).entrySet()) {
                if (r.getKey() > next) {
                    return next;
                }
                next = Math.max(next, r.getValue() + 1);
                if (next > to) {
                    return -1;
                }
            }
            return next > to ? -1 : next;
        }
    }

    /**
     * Where else a (key, value) may be: live SSTs (opened lazily, by key range) and the puts of every WAL RocksDB will
     * replay (numbered at or above the MANIFEST's log number).
     */
    private static final class Coverage implements AutoCloseable {
        private final List<LiveFileMetaData> live;
        private final Options options;
        private final Path dir;
        private final java.util.Map<String, SstFileReader> readers = new java.util.HashMap<>();
        private final java.util.Map<String, SstFileReaderIterator> iterators = new java.util.HashMap<>();
        private final ReadOptions read = new ReadOptions();
        private final Set<java.nio.ByteBuffer> walPuts = new java.util.HashSet<>();
        private boolean walUnknown;

        Coverage(Path dir, RocksDB ro, Options options) throws IOException {
            this.dir = dir;
            this.options = options;
            this.live = ro.getLiveFilesMetaData();
            long replayed = ManifestEdits.liveWalFloor(dir); // a WAL below it is not replayed: it covers nothing
            for (String n : list(dir)) {
                if (n.endsWith(".log") && WalCheck.walNumber(dir.resolve(n)) >= replayed) {
                    WalCheck.forEachRecord(
                            dir.resolve(n),
                            batch -> {
                                if (!WalCheck.batchPuts(batch, walPuts)) {
                                    walUnknown = true;
                                }
                            },
                            header -> walUnknown = true); // a batch over 256 MiB: not read (heap), its puts unknown
                }
            }
        }

        boolean covers(byte[] k, byte[] v) throws RocksDBException {
            if (walPuts.contains(WalCheck.entry(k, v))) {
                return true;
            }
            for (LiveFileMetaData f : live) {
                if (java.util.Arrays.compareUnsigned(f.smallestKey(), k) > 0
                        || java.util.Arrays.compareUnsigned(f.largestKey(), k) < 0) {
                    continue;
                }
                String n = Path.of(f.fileName()).getFileName().toString();
                SstFileReaderIterator it = iterators.get(n);
                if (it == null) {
                    SstFileReader r = new SstFileReader(options);
                    readers.put(n, r);
                    r.open(dir.resolve(n).toString());
                    it = r.newIterator(read);
                    iterators.put(n, it);
                }
                it.seek(k);
                if (it.isValid() && java.util.Arrays.equals(it.key(), k) && java.util.Arrays.equals(it.value(), v)) {
                    return true;
                }
            }
            return false; // walUnknown: a batch this parser cannot read may hold k; refusing is the safe side
        }

        @Override
        public void close() {
            iterators.values().forEach(SstFileReaderIterator::close);
            readers.values().forEach(SstFileReader::close);
            read.close();
        }
    }

    private static String printable(byte[] k) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(k.length, 32); i++) {
            int c = k[i] & 0xFF;
            b.append(c >= 0x20 && c < 0x7F ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return b.append(k.length > 32 ? "..." : "").toString();
    }

    // ---- locks ----

    /**
     * Who holds a POSIX/OFD/flock lock on {@code lockFile}, from {@code /proc/locks} (Linux); empty when nobody does or
     * when that cannot be known here (then RocksDB's own open still refuses a held LOCK, just not before the other
     * partitions are opened).
     */
    static Optional<String> lockHolder(Path lockFile) {
        Path procLocks = Path.of("/proc/locks");
        if (!Files.exists(lockFile) || !Files.isReadable(procLocks)) {
            return Optional.empty();
        }
        long ino;
        long dev;
        List<String> lines;
        try {
            ino = ((Number) Files.getAttribute(lockFile, "unix:ino")).longValue();
            dev = ((Number) Files.getAttribute(lockFile, "unix:dev")).longValue();
            lines = Files.readAllLines(procLocks);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Optional.empty();
        }
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        String self = Long.toString(ProcessHandle.current().pid());
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || f[1].equals("->")) {
                continue; // a waiter, not a holder
            }
            String[] id = f[5].split(":");
            if (id.length != 3) {
                continue;
            }
            try {
                if (Long.parseLong(id[2]) == ino
                        && Long.parseLong(id[0], 16) == major
                        && Long.parseLong(id[1], 16) == minor) {
                    return Optional.of(
                            f[4].equals(self)
                                    ? "this process (another node or RocksDB handle in this JVM)"
                                    : "process " + f[4]);
                }
            } catch (NumberFormatException e) {
                // not a line we understand
            }
        }
        return Optional.empty();
    }

    /**
     * The node-level lock {@code <data.dir>/SLUICE.lock}, taken with {@link FileChannel#tryLock()} before any partition
     * is touched: it detects another node in this JVM (OverlappingFileLockException) and in another process.
     */
    static final class StoreLock implements AutoCloseable {
        static final String NAME = "SLUICE.lock";
        private final FileChannel channel;
        private final FileLock lock;
        private final Path file;
        private final boolean created;
        private boolean released;

        private StoreLock(FileChannel channel, FileLock lock, Path file, boolean created) {
            this.channel = channel;
            this.lock = lock;
            this.file = file;
            this.created = created;
        }

        /**
         * Lock files this JVM holds. Checked before a channel is opened: with POSIX locks, closing <em>any</em> channel
         * on the file would release the holder's lock (FileChannel's documentation), so a refused second node in this
         * JVM must not open one.
         */
        private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

        static StoreLock acquire(Path dataDir) {
            Path file = dataDir.resolve(NAME).toAbsolutePath().normalize();
            try {
                file = dataDir.toRealPath().resolve(NAME);
            } catch (IOException e) {
                // the directory does not exist yet: the normalized path is the key
            }
            if (!HELD.add(file)) {
                throw new SluiceException("Sluice store " + dataDir + " is already open (" + file
                        + " is held by another node in this JVM); Sluice opened nothing");
            }
            try {
                return lock(dataDir, file);
            } catch (RuntimeException e) {
                HELD.remove(file);
                throw e;
            }
        }

        private static StoreLock lock(Path dataDir, Path file) {
            boolean created = !Files.exists(file);
            FileChannel ch = null;
            try {
                ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock l;
                String holder = null;
                try {
                    l = ch.tryLock();
                    if (l == null) {
                        holder = "another process";
                    }
                } catch (OverlappingFileLockException e) {
                    l = null;
                    holder = "another node in this JVM";
                }
                if (l == null) {
                    // Never delete the file here: whoever holds the lock holds it on this inode, and unlinking it
                    // would let a third node lock a new file of the same name (until 2026-11-27 the file was deleted
                    // when this attempt had "created" it, which a race with the holder's creation made possible).
                    ch.close();
                    throw new SluiceException("Sluice store " + dataDir + " is already open (" + file + " is held by "
                            + holder + "); Sluice opened nothing");
                }
                return new StoreLock(ch, l, file, created);
            } catch (IOException e) {
                if (ch != null) {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // already failing
                    }
                }
                throw new SluiceException("cannot lock Sluice store " + dataDir + ": " + file + ": " + e, e);
            }
        }

        /** Releases the lock after a refused open; removes the lock file if this open created it. */
        synchronized void releaseAfterRefusal() {
            if (created && !released) {
                try {
                    Files.deleteIfExists(file); // while still holding the lock: nobody else can have it on this inode
                } catch (IOException ignored) {
                    // an empty lock file left behind is harmless
                }
            }
            close();
        }

        @Override
        public synchronized void close() {
            if (released) {
                return;
            }
            released = true;
            try {
                if (lock.isValid()) {
                    lock.release();
                }
                channel.close();
            } catch (IOException ignored) {
                // closing the channel releases the lock in any case
            } finally {
                HELD.remove(file);
            }
        }
    }

    private static String readLink(Path link) {
        try {
            return String.valueOf(Files.readSymbolicLink(link));
        } catch (IOException | UnsupportedOperationException e) {
            return "unreadable";
        }
    }

    /** The number of an SST named like {@code 000127.sst}; -1 when the name is not a number. */
    private static long fileNumber(String sst) {
        try {
            return Long.parseLong(sst.substring(0, sst.length() - ".sst".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
