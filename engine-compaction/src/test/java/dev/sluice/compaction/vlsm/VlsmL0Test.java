package dev.sluice.compaction.vlsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.control.Action;
import dev.sluice.core.sensor.IoStats;
import dev.sluice.core.sensor.LevelInfo;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.OpCounters;
import dev.sluice.core.sensor.PartitionHealth;
import dev.sluice.core.sensor.SstFile;
import dev.sluice.core.sensor.StallCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Scripted snapshots and a fake clock: which file {@link VlsmL0} moves, when, and what it does to the L0 trigger. */
class VlsmL0Test {
    static final long MB = 1 << 20, SEC = 1_000_000_000L;

    /** An SST {@code name} ("000123.sst") with keys [lo, hi] (one byte each, unsigned) and largest seqno {@code seq}. */
    static SstFile sst(String name, int level, int lo, int hi, long seq, boolean busy) {
        return new SstFile(
                name,
                Long.parseLong(name.substring(0, 6)),
                level,
                8 * MB,
                seq - 10,
                seq,
                new byte[] {(byte) lo},
                new byte[] {(byte) hi},
                busy);
    }

    static SstFile sst(String name, int level, int lo, int hi, long seq) {
        return sst(name, level, lo, hi, seq, false);
    }

    static LevelInfo level(int n, SstFile... files) {
        return new LevelInfo(n, files.length, files.length * 8 * MB, n == 0 ? 0 : 64 * MB, List.of(files));
    }

    /** Partition "p": slowdown 20, stop 36, L0 compaction trigger {@code trigger}. */
    static NodeSnapshot snap(long now, int trigger, LevelInfo... levels) {
        return snap(now, trigger, PartitionHealth.OK, levels);
    }

    static NodeSnapshot snap(long now, int trigger, PartitionHealth health, LevelInfo... levels) {
        LsmSnapshot s = new LsmSnapshot(
                "p",
                now,
                SEC,
                0,
                0,
                128 * MB,
                0,
                8 * MB,
                16,
                20,
                36,
                List.of(levels),
                0,
                0,
                0,
                StallCondition.NORMAL,
                0,
                0,
                0,
                2,
                false,
                0,
                0,
                0,
                0,
                OpCounters.ZERO,
                OpCounters.ZERO,
                IoStats.EMPTY,
                IoStats.EMPTY,
                250.0,
                3,
                -1,
                0,
                health,
                trigger,
                1);
        return new NodeSnapshot(now, Map.of("p", s), IoStats.EMPTY, IoStats.EMPTY, 0);
    }

    final VlsmL0 c = new VlsmL0(1, 10 * SEC, 3, 60 * SEC);

    static List<Action.CompactFiles> moves(List<Action> actions) {
        List<Action.CompactFiles> out = new ArrayList<>();
        for (Action a : actions) {
            if (a instanceof Action.CompactFiles cf) {
                out.add(cf);
            }
        }
        return out;
    }

    // L1: [0,49] [50,99] [100,149] [150,199] [200,255]
    static final LevelInfo L1 = level(
            1,
            sst("000001.sst", 1, 0, 49, 5),
            sst("000002.sst", 1, 50, 99, 5),
            sst("000003.sst", 1, 100, 149, 5),
            sst("000004.sst", 1, 150, 199, 5),
            sst("000005.sst", 1, 200, 255, 5));

    @Test
    void movesTheOldestL0FileAloneAndNamesOnlyItsOverlappingL1Files() {
        // L0 newest first, as RocksDB lists it; the oldest (largest seqno 100) overlaps L1 files 2 and 3 only.
        LevelInfo l0 = level(
                0,
                sst("000030.sst", 0, 0, 255, 300),
                sst("000020.sst", 0, 10, 240, 200),
                sst("000010.sst", 0, 60, 120, 100));
        List<Action> out = c.decide(snap(0, 4, l0, L1), 0);

        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isInstanceOfSatisfying(Action.SetL0Triggers.class, t -> {
            assertThat(t.compactionTrigger()).isEqualTo(20);
            assertThat(t.slowdownTrigger()).isEqualTo(20);
            assertThat(t.stopTrigger()).isEqualTo(36);
        });
        Action.CompactFiles move = moves(out).get(0);
        assertThat(move.fileNames()).containsExactly("000010.sst");
        assertThat(move.outputLevel()).isEqualTo(1);
        assertThat(move.reason()).contains("oldest of 3 L0 files").contains("the 2 L1 files it overlaps");
        assertThat(VlsmL0.overlapping(l0.files().get(2), L1))
                .extracting(SstFile::name)
                .containsExactly("000002.sst", "000003.sst");
        assertThat(c.holdsL0("p")).isTrue();
    }

    @Test
    void oldestIsBySequenceNumberNotByListPositionOrFileNumber() {
        // file 000040 has the higher number but the older data (e.g. an ingested or re-numbered file)
        LevelInfo l0 = level(
                0, sst("000050.sst", 0, 0, 9, 900), sst("000040.sst", 0, 0, 9, 50), sst("000045.sst", 0, 0, 9, 70));
        assertThat(moves(c.decide(snap(0, 20, l0, L1), 0)).get(0).fileNames()).containsExactly("000040.sst");
    }

    @Test
    void equalLargestSeqnosAreOrderedBySmallestSeqnoThenFileNumberAsRocksDbDoes() {
        SstFile a = new SstFile("000007.sst", 7, 0, MB, 40, 90, new byte[] {0}, new byte[] {9}, false);
        SstFile b = new SstFile("000005.sst", 5, 0, MB, 60, 90, new byte[] {0}, new byte[] {9}, false);
        SstFile c2 = new SstFile("000006.sst", 6, 0, MB, 40, 90, new byte[] {0}, new byte[] {9}, false);
        assertThat(VlsmL0.oldest(List.of(b, a, c2)).name()).isEqualTo("000006.sst");
    }

    @Test
    void oneMoveInFlightAndNoRepeatOrOscillationOverManyTicks() {
        LevelInfo l0 = level(0, sst("000020.sst", 0, 0, 255, 200), sst("000010.sst", 0, 0, 255, 100));
        List<Action> all = new ArrayList<>(c.decide(snap(0, 4, l0, L1), 0));
        // the move is queued/running: same L0 for 5 more ticks (the file shows as being compacted from the 2nd)
        LevelInfo running = level(0, sst("000020.sst", 0, 0, 255, 200), sst("000010.sst", 0, 0, 255, 100, true));
        for (int t = 1; t <= 5; t++) {
            all.addAll(c.decide(snap(t * SEC, 20, t == 1 ? l0 : running, L1), t * SEC));
        }
        assertThat(moves(all)).hasSize(1);
        assertThat(all.stream().filter(a -> a instanceof Action.SetL0Triggers)).hasSize(1);

        // done: 000010 left L0; the next tick moves 000020, and the trigger is not touched again
        List<Action> next = c.decide(snap(6 * SEC, 20, level(0, sst("000020.sst", 0, 0, 255, 200)), L1), 6 * SEC);
        assertThat(next).hasSize(1);
        assertThat(moves(next).get(0).fileNames()).containsExactly("000020.sst");
    }

    @Test
    void waitsWhileAnL0FileOrAnOverlappingL1FileIsInARunningCompaction() {
        c.decide(snap(0, 20, level(0), L1), 0); // take-over tick, nothing to move
        LevelInfo l0Busy = level(0, sst("000020.sst", 0, 0, 255, 200, true), sst("000010.sst", 0, 0, 9, 100));
        assertThat(c.decide(snap(SEC, 20, l0Busy, L1), SEC)).isEmpty();

        LevelInfo l0 = level(0, sst("000010.sst", 0, 60, 70, 100));
        LevelInfo l1Busy = level(1, sst("000001.sst", 1, 0, 49, 5), sst("000002.sst", 1, 50, 99, 5, true));
        assertThat(c.decide(snap(2 * SEC, 20, l0, l1Busy), 2 * SEC)).isEmpty();
        // an L1 file outside the range being compacted does not block
        LevelInfo l1OtherBusy = level(1, sst("000001.sst", 1, 0, 49, 5, true), sst("000002.sst", 1, 50, 99, 5));
        assertThat(moves(c.decide(snap(3 * SEC, 20, l0, l1OtherBusy), 3 * SEC)))
                .singleElement()
                .satisfies(m -> assertThat(m.reason()).contains("the 1 L1 files"));
    }

    @Test
    void l0FilesMinHoldsSmallQueues() {
        VlsmL0 q = new VlsmL0(3, 10 * SEC, 3, 60 * SEC);
        LevelInfo two = level(0, sst("000020.sst", 0, 0, 255, 200), sst("000010.sst", 0, 0, 255, 100));
        assertThat(moves(q.decide(snap(0, 20, two, L1), 0))).isEmpty();
        LevelInfo three = level(
                0,
                sst("000030.sst", 0, 0, 255, 300),
                sst("000020.sst", 0, 0, 255, 200),
                sst("000010.sst", 0, 0, 255, 100));
        assertThat(moves(q.decide(snap(SEC, 20, three, L1), SEC))).hasSize(1);
    }

    @Test
    void failedMovesAreRetriedThenL0IsHandedBackAndTakenAgainAfterTheBackoff() {
        LevelInfo l0 = level(0, sst("000010.sst", 0, 0, 255, 100));
        long t = 0;
        assertThat(moves(c.decide(snap(t, 4, l0, L1), t))).hasSize(1); // move 1 (and the raise to 20)
        t += 11 * SEC; // timed out, file still there, not being compacted
        assertThat(moves(c.decide(snap(t, 20, l0, L1), t))).hasSize(1); // move 2
        t += 11 * SEC;
        assertThat(moves(c.decide(snap(t, 20, l0, L1), t))).hasSize(1); // move 3
        t += 11 * SEC;
        List<Action> giveUp = c.decide(snap(t, 20, l0, L1), t);
        assertThat(giveUp).singleElement().isInstanceOfSatisfying(Action.SetL0Triggers.class, a -> {
            assertThat(a.compactionTrigger()).isEqualTo(4);
            assertThat(a.reason()).contains("handed back");
        });
        assertThat(c.holdsL0("p")).isFalse();
        assertThat(c.decide(snap(t + 30 * SEC, 4, l0, L1), t + 30 * SEC)).isEmpty(); // backing off
        List<Action> again = c.decide(snap(t + 61 * SEC, 4, l0, L1), t + 61 * SEC);
        assertThat(again).hasSize(2);
        assertThat(again.get(0)).isInstanceOf(Action.SetL0Triggers.class);
    }

    @Test
    void doesNotFightAnotherControllerOverTheTrigger() {
        LevelInfo empty = level(0);
        assertThat(c.decide(snap(0, 4, empty, L1), 0)).hasSize(1); // raise to 20
        assertThat(c.decide(snap(SEC, 20, empty, L1), SEC)).isEmpty();
        // someone else set 8: left alone, for good
        assertThat(c.decide(snap(2 * SEC, 8, empty, L1), 2 * SEC)).isEmpty();
        assertThat(c.decide(snap(3 * SEC, 4, empty, L1), 3 * SEC)).isEmpty();
        // moves go on
        assertThat(moves(c.decide(snap(4 * SEC, 4, level(0, sst("000010.sst", 0, 0, 9, 100)), L1), 4 * SEC)))
                .hasSize(1);
    }

    @Test
    void composesWithAdmissionAndLeavesStoppedPartitionsAlone() {
        // the snapshots carry a binding admission gate (250 req/s, 3 queued): vlsm-l0 touches only its two knobs
        LevelInfo l0 = level(0, sst("000020.sst", 0, 0, 255, 200), sst("000010.sst", 0, 0, 255, 100));
        List<Action> out = c.decide(snap(0, 4, l0, L1), 0);
        assertThat(out).extracting(Action::knobName).containsExactly("l0_triggers", "compact_files:000010.sst");

        VlsmL0 d = new VlsmL0(1, 10 * SEC, 3, 60 * SEC);
        PartitionHealth stopped = new PartitionHealth("IO error: no space", true, true, false, 1);
        assertThat(d.decide(snap(0, 4, stopped, l0, L1), 0)).isEmpty();
    }

    @Test
    void unknownTriggerIsNotTouchedButFilesStillMove() {
        LevelInfo l0 = level(0, sst("000010.sst", 0, 0, 9, 100));
        List<Action> out = c.decide(snap(0, -1, l0, L1), 0);
        assertThat(out).singleElement().isInstanceOf(Action.CompactFiles.class);
    }

    @Test
    void badParametersAreRefusedByName() {
        assertThatThrownBy(() -> new VlsmL0(0, SEC, 3, SEC)).hasMessageContaining("l0.files.min");
    }
}
