package dev.sluice.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The record of a partition's last clean close: {@code <partition dir>/SLUICE-CLEAN-CLOSE}, holding the sequence number
 * of the newest write, written after the WAL was synced and the DB closed, and removed by the next open.
 *
 * <p><b>Why.</b> RocksDB 9.10 does not track the live WAL's size in the MANIFEST (only closed WALs'), and with
 * point-in-time recovery a WAL cut short opens as a shorter history without a word: that is how a crash's unsynced tail
 * is dropped, and the same thing happens to a WAL truncated <em>after</em> a clean close, synced writes and all. {@link
 * WalCheck} tells damage inside a WAL from a torn tail, but a clean cut at any offset looks like a torn tail. After a
 * clean close nothing may be torn: every acknowledged write was synced, so the recovered sequence number must reach the
 * recorded one. {@link StoreCheck} opens the partition read-only before anything is written and refuses it when it does
 * not ({@link StoreCorruptedException}, nothing changed); deleting this file accepts the loss.
 *
 * <p>After a crash there is no record (the open removed it) and recovery is RocksDB's, as before: a cut then cannot be
 * told from the crash's own torn tail (SYNC writes are still protected against damage inside the WAL by {@link
 * WalCheck}). A record left by an older clean close can never refuse a newer state: sequence numbers only grow, and the
 * recorded writes were synced.
 */
final class CleanClose {
    static final String FILE = "SLUICE-CLEAN-CLOSE";
    private static final Pattern LINE = Pattern.compile("sequence (\\d{1,19})\\s*");

    private CleanClose() {}

    /** Records {@code sequence} as the newest write at a clean close (atomically: the old record or the new one). */
    static void record(Path dir, long sequence) throws IOException {
        NodeImpl.writeAtomically(
                dir,
                FILE,
                ("# Written by Sluice when this partition closed cleanly; removed when it opens. Delete it only to open a"
                                + " partition whose write-ahead log lost synced writes.\nsequence " + sequence + "\n")
                        .getBytes(StandardCharsets.UTF_8));
    }

    /** The recorded sequence number, or empty when the partition was not closed cleanly (or by an older Sluice). */
    static OptionalLong read(String partition, Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        if (!Files.exists(f)) {
            return OptionalLong.empty();
        }
        String damaged = "partition '" + partition + "': the clean-close record " + f
                + " is damaged; Sluice did not open or change the partition. Delete the file to open it without the"
                + " check that its write-ahead log kept every synced write";
        if (!Files.isRegularFile(f)) {
            throw new StoreCorruptedException(damaged);
        }
        String text = NodeImpl.readText(f, damaged);
        if (!text.endsWith("\n")) {
            // written whole with a final newline: "sequence 12345" cut to "sequence 12" must not read as 12
            throw new StoreCorruptedException(damaged);
        }
        for (String l : text.split("\n", -1)) {
            if (l.isBlank() || l.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(l);
            if (!m.matches()) {
                throw new StoreCorruptedException(damaged);
            }
            try {
                return OptionalLong.of(Long.parseLong(m.group(1)));
            } catch (NumberFormatException e) {
                throw new StoreCorruptedException(damaged);
            }
        }
        throw new StoreCorruptedException(damaged);
    }

    /** Removes the record once the partition is open for writing (its state moves on from what it describes). */
    static void clear(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE));
    }
}
