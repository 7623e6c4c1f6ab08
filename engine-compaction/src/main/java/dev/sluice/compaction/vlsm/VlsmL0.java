package dev.sluice.compaction.vlsm;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * vLSM's FIFO L0 (vLSM §4.1): "it picks a single SST from L0, in FIFO order each time, and compacts it to L1". Design
 * note with the exact/approximate split: VLSM.md next to this class.
 *
 * <p>Each tick, per partition:
 *
 * <ol>
 *   <li><b>Take over L0</b> (once): raise {@code level0_file_num_compaction_trigger} to the slowdown trigger, so that
 *       RocksDB's own tiered L0→L1 compaction (all overlapping L0 files at once) does not compete with the FIFO moves.
 *       The value before is remembered and handed back when the controller gives up (below). The raise is not persisted:
 *       the profile sets the trigger again at every open.
 *   <li><b>Wait</b> while the previous move is not done: its file is still in L0 (at most {@code timeout.seconds}).
 *   <li><b>Move the oldest L0 file</b> — the last in RocksDB's own L0 order ({@link #oldest}) — when L0 holds at
 *       least {@code l0.files.min} files: {@code compactFiles([oldest], L1)}. Valid on its own because no older L0 file
 *       exists (RocksDB requires every older L0 file in the same compaction); RocksDB adds the L1 files that overlap it,
 *       which are the only other inputs. The move waits while any L0 file or one of those L1 files is in a running
 *       compaction (RocksDB would refuse it).
 * </ol>
 *
 * <p><b>Giving up.</b> A move whose file is still in L0 after {@code timeout.seconds} counts as failed (e.g. refused
 * because a compaction took an input first); the next tick picks again. After {@code max.failures} failures in a row
 * the controller hands L0 back to RocksDB — restores the compaction trigger — and stays away for {@code
 * backoff.seconds}. If another controller changes the trigger after the raise, this one does not raise it again (no
 * fight over the knob); it keeps moving files.
 *
 * <p>Pure: time only through {@code nowNanos}; not thread-safe (the control plane calls it from one thread).
 */
public final class VlsmL0 implements ControlLoop {
    static final String NAME = "vlsm-l0";

    private final int l0FilesMin;
    private final long timeoutNanos;
    private final int maxFailures;
    private final long backoffNanos;
    private final Map<String, State> states = new HashMap<>();

    /** Per partition. */
    private static final class State {
        /** The trigger before the raise; -1 while this controller has not raised it. */
        int restoreTrigger = -1;
        /** The trigger this controller set; -1 before the raise. */
        int raisedTo = -1;
        /** The controller gave up on the trigger knob (someone else changed it). */
        boolean leaveTrigger;

        String pendingFile;
        long pendingSince;
        int failures;
        long backoffUntil = Long.MIN_VALUE;
    }

    public VlsmL0(int l0FilesMin, long timeoutNanos, int maxFailures, long backoffNanos) {
        if (l0FilesMin < 1 || timeoutNanos <= 0 || maxFailures < 1 || backoffNanos < 0) {
            throw new IllegalArgumentException("vlsm-l0: l0.files.min >= 1, timeout > 0, max.failures >= 1 and"
                    + " backoff >= 0 required, were " + l0FilesMin + ", " + timeoutNanos + " ns, " + maxFailures + ", "
                    + backoffNanos + " ns");
        }
        this.l0FilesMin = l0FilesMin;
        this.timeoutNanos = timeoutNanos;
        this.maxFailures = maxFailures;
        this.backoffNanos = backoffNanos;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Whether this controller holds L0 of {@code partition} now (its raised trigger is in place). */
    public boolean holdsL0(String partition) {
        State st = states.get(partition);
        return st != null && st.raisedTo > 0;
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        List<Action> out = new ArrayList<>();
        for (LsmSnapshot s : snapshot.partitions().values()) {
            decide(s, nowNanos, out);
        }
        return out;
    }

    private void decide(LsmSnapshot s, long nowNanos, List<Action> out) {
        String p = s.partition();
        if (s.levels().size() < 2 || s.health().writesStopped()) {
            return;
        }
        State st = states.computeIfAbsent(p, k -> new State());
        if (nowNanos < st.backoffUntil) {
            return;
        }
        takeOverL0(s, st, out);

        List<SstFile> l0 = s.levels().get(0).files();
        if (st.pendingFile != null) {
            boolean stillThere = l0.stream().anyMatch(f -> f.name().equals(st.pendingFile));
            if (!stillThere) {
                st.pendingFile = null;
                st.failures = 0;
            } else if (nowNanos - st.pendingSince < timeoutNanos) {
                return;
            } else {
                st.pendingFile = null;
                if (++st.failures >= maxFailures) {
                    handBack(s, st, nowNanos, out);
                    return;
                }
            }
        }
        if (l0.size() < l0FilesMin) {
            return;
        }
        SstFile oldest = oldest(l0);
        if (l0.stream().anyMatch(SstFile::beingCompacted)) {
            return; // a running L0 compaction (RocksDB's, or ours still running): the move would be refused
        }
        List<SstFile> overlapping = overlapping(oldest, s.levels().get(1));
        if (overlapping.stream().anyMatch(SstFile::beingCompacted)) {
            return; // an L1 input is in an L1->L2 compaction: wait for it
        }
        long l1Bytes = overlapping.stream().mapToLong(SstFile::sizeBytes).sum();
        st.pendingFile = oldest.name();
        st.pendingSince = nowNanos;
        out.add(new Action.CompactFiles(
                p,
                List.of(oldest.name()),
                1,
                String.format(
                        "FIFO L0 (vLSM §4.1): oldest of %d L0 files (%d bytes, seqno %d..%d) + the %d L1 files it"
                                + " overlaps (%d bytes)",
                        l0.size(),
                        oldest.sizeBytes(),
                        oldest.smallestSeqno(),
                        oldest.largestSeqno(),
                        overlapping.size(),
                        l1Bytes)));
    }

    private void takeOverL0(LsmSnapshot s, State st, List<Action> out) {
        int trigger = s.l0CompactionTrigger();
        if (st.leaveTrigger || trigger <= 0) {
            return;
        }
        if (st.raisedTo > 0) {
            if (trigger != st.raisedTo) {
                st.leaveTrigger = true; // someone else set it since: do not fight over it
            }
            return;
        }
        int target = Math.max(trigger, s.l0SlowdownTrigger());
        st.restoreTrigger = trigger;
        st.raisedTo = target;
        if (target != trigger) {
            out.add(new Action.SetL0Triggers(
                    s.partition(),
                    target,
                    s.l0SlowdownTrigger(),
                    s.l0StopTrigger(),
                    "vlsm-l0 moves L0 files one at a time: RocksDB's own L0->L1 compaction waits until L0 reaches the"
                            + " slowdown trigger (was " + trigger + ")"));
        }
    }

    private void handBack(LsmSnapshot s, State st, long nowNanos, List<Action> out) {
        st.failures = 0;
        st.backoffUntil = nowNanos + backoffNanos;
        if (st.raisedTo > 0 && !st.leaveTrigger && st.restoreTrigger != s.l0CompactionTrigger()) {
            out.add(new Action.SetL0Triggers(
                    s.partition(),
                    Math.min(st.restoreTrigger, s.l0SlowdownTrigger()),
                    s.l0SlowdownTrigger(),
                    s.l0StopTrigger(),
                    String.format(
                            "%d FIFO L0 moves in a row did not complete: L0 handed back to RocksDB for %.0f s",
                            maxFailures, backoffNanos / 1e9)));
        }
        st.raisedTo = -1;
        st.restoreTrigger = -1;
        st.leaveTrigger = false;
    }

    /**
     * RocksDB's L0 order (newest first by largest sequence number, then smallest sequence number, then file number):
     * the last file of that order is the oldest.
     */
    static SstFile oldest(List<SstFile> l0) {
        SstFile best = null;
        for (SstFile f : l0) {
            if (best == null || OLDER_FIRST.compare(f, best) < 0) {
                best = f;
            }
        }
        return best;
    }

    private static final Comparator<SstFile> OLDER_FIRST = Comparator.comparingLong(SstFile::largestSeqno)
            .thenComparingLong(SstFile::smallestSeqno)
            .thenComparingLong(SstFile::fileNumber);

    /** The files of {@code level} whose key range intersects {@code f}'s (keys ordered bytewise, unsigned). */
    static List<SstFile> overlapping(SstFile f, LevelInfo level) {
        List<SstFile> out = new ArrayList<>();
        for (SstFile g : level.files()) {
            if (Arrays.compareUnsigned(g.largestKey(), f.smallestKey()) >= 0
                    && Arrays.compareUnsigned(g.smallestKey(), f.largestKey()) <= 0) {
                out.add(g);
            }
        }
        return out;
    }
}
