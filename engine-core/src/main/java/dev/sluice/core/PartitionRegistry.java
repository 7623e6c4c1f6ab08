package dev.sluice.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code <data.dir>/PARTITIONS}: the names of the partitions this store has created, one per line, so that a partition
 * whose directory is gone is told apart from one configured for the first time.
 *
 * <p>Without it, a configured partition with no directory is new, and the node creates it empty: a partition
 * directory deleted by mistake, or a volume mounted over the wrong path, reopened as an empty partition that answered
 * every read "not found", and the next writes went into the empty copy. With it, a listed partition whose directory
 * is missing (or has lost its {@code CURRENT} file and every data file) is refused before anything is written, naming
 * the partition and the way out.
 *
 * <p>Written after the partitions it lists were opened (so every listed partition once had a {@code CURRENT}), as a
 * temp file that is fsynced, renamed over the old one and followed by an fsync of the directory: a crash leaves the
 * old list or the new one. A partition created by a node that crashed before the list was rewritten is added at the
 * next open (its directory has {@code CURRENT}). Stores made before this file existed (2026-11-26) have none; their
 * first open writes it from the partition directories that hold a {@code CURRENT}. Deleting the file only switches the
 * check off until the next open writes it again.
 */
final class PartitionRegistry {
    static final String FILE = "PARTITIONS";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String HEADER = "# Partitions this Sluice store has created, one per line. A listed partition"
            + " whose directory is missing is refused at open.\n# Delete a line only after deleting that partition on"
            + " purpose.\n";

    private PartitionRegistry() {}

    /** The listed names; empty when the store has no list yet. Throws when the file is not a list of names. */
    static Optional<Set<String>> read(Path dataDir) throws IOException {
        Path f = dataDir.resolve(FILE);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(f)) {
            throw new StoreCorruptedException(f + " is not a regular file; Sluice did not open or change the store");
        }
        String text = NodeImpl.readText(
                f,
                "the partition list " + f + " is not text (damaged); Sluice did not open or change the store."
                        + " Delete it to open the store without the missing-partition check (the next open"
                        + " writes it again)");
        if (!text.endsWith("\n")) {
            // Sluice writes the file whole, header first and a newline after every name: an empty file or a last line
            // without its newline is a cut (until 2026-11-27 it read as a shorter list, and the open then recreated a
            // listed partition whose directory was gone empty, and rewrote the list, erasing the evidence).
            throw new StoreCorruptedException("the partition list " + f + " is cut short ("
                    + (text.isEmpty() ? "empty" : "its last line has no newline")
                    + "; Sluice writes it whole, so it is damaged); Sluice did not open or change the store. If you"
                    + " edited it, end it with a newline; else delete it to open the store without the"
                    + " missing-partition check (the next open writes it again)");
        }
        Set<String> names = new TreeSet<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i].strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            if (!NAME.matcher(l).matches()) {
                throw new StoreCorruptedException("the partition list " + f + " line " + (i + 1) + ": '"
                        + (l.length() > 80 ? l.substring(0, 80) + "..." : l)
                        + "' is not a partition name ([A-Za-z0-9_-]{1,64}); Sluice did not open or change the"
                        + " store. Fix or delete the line (deleting the file switches the missing-partition check"
                        + " off until the next open writes it again)");
            }
            names.add(l);
        }
        return Optional.of(names);
    }

    /**
     * The refusal for a configured partition that the list names but whose directory holds no store ({@code state}
     * {@link StoreCheck.State#ABSENT} or {@link StoreCheck.State#INTERRUPTED_CREATION}); null when it may be created.
     */
    static StoreCorruptedException missing(
            Path dataDir, String name, Path dir, StoreCheck.State state, Set<String> listed) {
        if (state == StoreCheck.State.EXISTING || !listed.contains(name)) {
            return null;
        }
        String what = state == StoreCheck.State.ABSENT
                ? "its directory " + dir + " is missing"
                : "its directory " + dir + " has no CURRENT file and no data files";
        return new StoreCorruptedException("partition '" + name + "' was created in this store (listed in "
                + dataDir.resolve(FILE) + ") but " + what + ": its data is gone (deleted, moved, or a volume not"
                + " mounted). Sluice did not open or change the store, and did not create the partition empty."
                + " Restore the directory; or, to start the partition over with no data, delete the line '" + name
                + "' from " + FILE + ".");
    }

    /**
     * The partition list as it must be after an open of {@code partitions} on a store that lists {@code listed}:
     * present when the file must be (re)written — a partition is added, one exists on disk unlisted, or the file is
     * missing — empty when it stays as it is. Used by the open's read-only checks and by the write after it.
     */
    static Optional<Set<String>> update(Path dataDir, Set<String> listed, java.util.Collection<String> partitions)
            throws IOException {
        Set<String> all = new TreeSet<>(listed);
        all.addAll(partitions);
        all.addAll(onDisk(dataDir.resolve("partitions")));
        return !all.equals(listed) || !Files.exists(dataDir.resolve(FILE)) ? Optional.of(all) : Optional.empty();
    }

    /** Names of the partition directories under {@code partitionsDir} that hold a {@code CURRENT} file. */
    static Set<String> onDisk(Path partitionsDir) throws IOException {
        Set<String> names = new TreeSet<>();
        if (!Files.isDirectory(partitionsDir)) {
            return names;
        }
        try (Stream<Path> s = Files.list(partitionsDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.getFileName().toString();
                if (NAME.matcher(n).matches() && Files.isRegularFile(p.resolve("CURRENT"))) {
                    names.add(n);
                }
            }
        }
        return names;
    }

    /** Writes {@code names} (sorted) as the list: temp file, fsync, atomic rename, directory fsync. */
    static void write(Path dataDir, Collection<String> names) throws IOException {
        StringBuilder b = new StringBuilder(HEADER);
        for (String n : new TreeSet<>(names)) {
            b.append(n).append('\n');
        }
        NodeImpl.writeAtomically(dataDir, FILE, b.toString().getBytes(StandardCharsets.UTF_8));
    }
}
