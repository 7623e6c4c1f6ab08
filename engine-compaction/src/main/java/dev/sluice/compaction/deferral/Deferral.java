package dev.sluice.compaction.deferral;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.ControlLoop;
import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LsmSnapshot;
import dev.sluice.core.sensor.NodeSnapshot;
import dev.sluice.core.sensor.SstFile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Controller {@code deferral}: FlexEngine's two-stage compaction deferral (§4.3) on stock RocksDB. See DEFERRAL.md in
 * this package for how a compaction is held back and why no data can be lost or reordered.
 *
 * <ul>
 *   <li><b>Stage 1</b> — node I/O use (the Env's device budget use over the last second) at or above {@code high}:
 *       the partitions whose background I/O most exceeds their Eq. 3 budget get automatic compactions switched off and
 *       their pending-compaction stall limits lifted (0 = none, restored at resume); this controller then runs L0→L1
 *       itself, as {@code compactFiles(L0 files, 1)}, once {@code l0.files} L0 files wait. Deeper compactions stop.
 *   <li><b>Stage 2</b> — a suspended partition's L0 reaches {@code stage2.fraction} of its stall trigger (RocksDB's
 *       {@code level0_slowdown_writes_trigger}, where writes start to be delayed): L0→L1 stops too, and contiguous
 *       runs (by sequence number) of at least {@code intra.l0.min} idle L0 files are merged into one L0 file each with
 *       {@code compactFiles(files, 0)}; disjoint runs are issued in the same tick.
 *   <li><b>Resume</b> — node I/O use at or below {@code low} for {@code resume.ticks} ticks in a row: one partition per
 *       tick, the one suspended longest first (oldest debt first), gets automatic compactions and its stall limits
 *       back; RocksDB then works the debt off by its level scores. A resumed partition is not suspended again for
 *       {@code resume.hold.s}, so its deferred compactions (which fill the device themselves) can restore the pyramid.
 * </ul>
 *
 * Every stage change is an action whose reason names the partition, the stage change and the measured values; the
 * control plane records it as a {@code ControlEvent}. Pure: reads only the snapshots and {@code nowNanos}; not
 * thread-safe (the control plane's tick thread only).
 */
public final class Deferral implements ControlLoop {
    public static final String NAME = "deferral";

    /** A partition's deferral stage. */
    public enum Stage {
        NORMAL,
        STAGE1,
        STAGE2
    }

    /** Tunables (see {@link DeferralProvider} for their documentation). */
    public record Settings(
            double high,
            double low,
            int resumeTicks,
            double lsmBa,
            int maxPartitions,
            double stage2Fraction,
            int l0Files,
            int intraL0Min,
            int intraL0Max,
            long pendingTimeoutNanos,
            long resumeHoldNanos) {
        public Settings {
            if (!(low < high)) {
                throw new IllegalArgumentException(
                        "control.deferral.low (" + low + ") must be below control.deferral.high (" + high + ")");
            }
            if (intraL0Max < intraL0Min) {
                throw new IllegalArgumentException("control.deferral.intra.l0.max (" + intraL0Max
                        + ") must be at least control.deferral.intra.l0.min (" + intraL0Min + ")");
            }
        }

        public static Settings defaults() {
            return new Settings(0.8, 0.6, 3, 46, 0, 0.6, 4, 4, 8, 60_000_000_000L, 30_000_000_000L);
        }
    }

    private static final class State {
        Stage stage = Stage.NORMAL;
        long suspendedAt;
        long savedSoft;
        long savedHard;
        long resumedAt = Long.MIN_VALUE;
    }

    private final Settings s;
    private final Map<String, State> states = new LinkedHashMap<>();
    /** Files this controller handed to a manual compaction, with the time: not reused until gone or timed out. */
    private final Map<String, Map<String, Long>> issued = new HashMap<>();

    private int calmTicks;
    /** Ticks in a row in which the partitions did I/O and the Env reported no budget use at all. */
    private int unbudgetedTicks;

    private boolean toldNoBudget;
    /**
     * After this many such ticks, one event says the Env has no budget to measure (a probe, 2026-11-29: deferral on the
     * priority Env without a device model or node budget recorded no event in 490,000 puts, and nothing said why).
     */
    static final int NO_BUDGET_TICKS = 10;

    public Deferral(Settings settings) {
        this.s = settings;
    }

    @Override
    public String name() {
        return NAME;
    }

    private void noBudget(NodeSnapshot snapshot, double use, List<Action> out) {
        long bytes = 0;
        for (LsmSnapshot ls : snapshot.partitions().values()) {
            bytes += ls.ioDelta().bytes(IoClass.values());
        }
        if (use > 0) {
            unbudgetedTicks = 0;
        } else if (bytes > 0 && ++unbudgetedTicks == NO_BUDGET_TICKS && !toldNoBudget) {
            toldNoBudget = true;
            out.add(new Action.ConfigureIo(
                    "deferral_budget",
                    "none",
                    io -> {},
                    "the Env reports no device budget use while the partitions do I/O: deferral acts on that use, so"
                            + " it will not act; enable the device model (env.device.enabled = true) or give the node"
                            + " policy a budget (env.policy.node.mbps / node.iops)"));
        }
    }

    /** The partition's current stage (NORMAL for a partition never seen). */
    public Stage stage(String partition) {
        State st = states.get(partition);
        return st == null ? Stage.NORMAL : st.stage;
    }

    @Override
    public List<Action> decide(NodeSnapshot snapshot, long nowNanos) {
        double use = snapshot.deviceBudgetUse();
        List<Action> out = new ArrayList<>();
        noBudget(snapshot, use, out);
        for (String p : snapshot.partitions().keySet()) {
            states.computeIfAbsent(p, k -> new State());
            forgetGone(p, snapshot.partition(p), nowNanos);
        }
        states.keySet().retainAll(snapshot.partitions().keySet());

        if (use >= s.high) {
            calmTicks = 0;
            suspend(snapshot, use, nowNanos, out);
        } else if (use <= s.low) {
            calmTicks++;
        } else {
            calmTicks = 0;
        }

        if (calmTicks >= s.resumeTicks) {
            resumeOldest(snapshot, use, nowNanos, out);
        }

        for (Map.Entry<String, State> e : states.entrySet()) {
            State st = e.getValue();
            if (st.stage == Stage.NORMAL) {
                continue;
            }
            String p = e.getKey();
            LsmSnapshot ls = snapshot.partition(p);
            double stage2At = s.stage2Fraction * ls.l0SlowdownTrigger();
            if (st.stage == Stage.STAGE1 && ls.l0SlowdownTrigger() > 0 && ls.l0Files() >= stage2At) {
                st.stage = Stage.STAGE2;
                out.add(new Action.SetDeferralStage(
                        p,
                        2,
                        String.format(
                                "deferral stage 1 -> 2 in '%s': L0 has %d files >= %.0f%% of the stall trigger %d"
                                        + " (%.1f files); L0->L1 suspended, intra-L0 merges start; node I/O use %.2f",
                                p, ls.l0Files(), s.stage2Fraction * 100, ls.l0SlowdownTrigger(), stage2At, use)));
            }
            if (st.stage == Stage.STAGE1) {
                l0ToL1(p, ls, nowNanos, out);
            } else {
                intraL0(p, ls, nowNanos, out);
            }
        }
        return out;
    }

    private void suspend(NodeSnapshot snapshot, double use, long now, List<Action> out) {
        record Cand(String p, double bg, double budget) {}
        List<Cand> cands = new ArrayList<>();
        for (Map.Entry<String, LsmSnapshot> e : snapshot.partitions().entrySet()) {
            State st0 = states.get(e.getKey());
            if (st0.stage != Stage.NORMAL
                    || (st0.resumedAt != Long.MIN_VALUE && now - st0.resumedAt < s.resumeHoldNanos)) {
                continue; // suspended already, or resumed recently and working its deferred compactions off
            }
            LsmSnapshot ls = e.getValue();
            double sec = ls.intervalSeconds();
            if (sec <= 0) {
                continue;
            }
            double bg = ls.ioDelta()
                            .bytes(
                                    IoClass.FLUSH,
                                    IoClass.COMPACTION_L0,
                                    IoClass.COMPACTION_HIGH,
                                    IoClass.COMPACTION_DEEP)
                    / sec;
            double budget = Math.max(0, ls.opsDelta().bytesWritten()) / sec * s.lsmBa;
            cands.add(new Cand(e.getKey(), bg, budget));
        }
        List<Cand> over = new ArrayList<>();
        for (Cand c : cands) {
            if (c.bg > c.budget && c.bg > 0) {
                over.add(c);
            }
        }
        over.sort(Comparator.comparingDouble((Cand c) -> -(c.bg / Math.max(1, c.budget))));
        if (over.isEmpty() && !cands.isEmpty() && noneSuspended()) {
            // Nobody exceeds its budget, yet the device is over the watermark: defer the largest background user.
            Cand top = cands.stream().max(Comparator.comparingDouble(Cand::bg)).orElseThrow();
            if (top.bg > 0) {
                over.add(top);
            }
        }
        int n = s.maxPartitions > 0 ? Math.min(s.maxPartitions, over.size()) : over.size();
        for (Cand c : over.subList(0, n)) {
            LsmSnapshot ls = snapshot.partition(c.p);
            State st = states.get(c.p);
            st.stage = Stage.STAGE1;
            st.suspendedAt = now;
            st.savedSoft = ls.softPendingLimit();
            st.savedHard = ls.hardPendingLimit();
            String why = String.format(
                    "deferral 0 -> stage 1 in '%s': node I/O use %.2f >= high %.2f; background %.2f MiB/s over its"
                            + " Eq. 3 budget %.2f MiB/s; compactions other than L0->L1 suspended",
                    c.p, use, s.high, c.bg / (1 << 20), c.budget / (1 << 20));
            out.add(new Action.SetDeferralStage(c.p, 1, why));
            out.add(new Action.SetAutoCompactions(c.p, false, "deferral stage 1 in '" + c.p + "'"));
            out.add(new Action.SetPendingCompactionLimits(
                    c.p,
                    0,
                    0,
                    "deferral stage 1 in '" + c.p + "': pending-compaction stall limits lifted while deep compactions"
                            + " are suspended (were soft " + st.savedSoft + " B, hard " + st.savedHard + " B)"));
        }
    }

    private boolean noneSuspended() {
        return states.values().stream().allMatch(st -> st.stage == Stage.NORMAL);
    }

    private void resumeOldest(NodeSnapshot snapshot, double use, long now, List<Action> out) {
        String oldest = null;
        long at = Long.MAX_VALUE;
        for (Map.Entry<String, State> e : states.entrySet()) {
            State st = e.getValue();
            if (st.stage != Stage.NORMAL && st.suspendedAt < at) {
                oldest = e.getKey();
                at = st.suspendedAt;
            }
        }
        if (oldest == null) {
            return;
        }
        State st = states.get(oldest);
        LsmSnapshot ls = snapshot.partition(oldest);
        String why = String.format(
                "deferral stage %d -> 0 in '%s': node I/O use %.2f <= low %.2f for %d ticks; deferred compactions"
                        + " resume (pending %d B, L0 %d files)",
                st.stage == Stage.STAGE1 ? 1 : 2,
                oldest,
                use,
                s.low,
                calmTicks,
                ls.pendingCompactionBytes(),
                ls.l0Files());
        st.stage = Stage.NORMAL;
        st.resumedAt = now;
        out.add(new Action.SetPendingCompactionLimits(
                oldest,
                st.savedSoft,
                st.savedHard,
                "deferral resume in '" + oldest + "': pending-compaction stall limits restored"));
        out.add(new Action.SetDeferralStage(oldest, 0, why));
        out.add(new Action.SetAutoCompactions(oldest, true, "deferral resume in '" + oldest + "'"));
    }

    private void l0ToL1(String p, LsmSnapshot ls, long now, List<Action> out) {
        if (ls.levels().isEmpty()) {
            return;
        }
        Map<String, Long> mine = issued.computeIfAbsent(p, k -> new HashMap<>());
        List<String> idle = new ArrayList<>();
        for (SstFile f : ls.levels().get(0).files()) {
            if (f.beingCompacted() || mine.containsKey(f.name())) {
                return; // one L0->L1 at a time: wait until the running one finishes
            }
            idle.add(f.name());
        }
        if (idle.size() >= s.l0Files) {
            for (String f : idle) {
                mine.put(f, now);
            }
            out.add(new Action.CompactFiles(
                    p,
                    idle,
                    1,
                    String.format(
                            "deferral stage 1 in '%s': L0->L1 of %d L0 files (L0 %d files)",
                            p, idle.size(), ls.l0Files())));
        }
    }

    private void intraL0(String p, LsmSnapshot ls, long now, List<Action> out) {
        if (ls.levels().isEmpty()) {
            return;
        }
        Map<String, Long> mine = issued.computeIfAbsent(p, k -> new HashMap<>());
        List<SstFile> l0 = new ArrayList<>(ls.levels().get(0).files());
        l0.sort(Comparator.comparingLong(SstFile::largestSeqno));
        List<List<String>> runs = new ArrayList<>();
        List<String> run = new ArrayList<>();
        for (SstFile f : l0) {
            if (f.beingCompacted() || mine.containsKey(f.name())) {
                runs.add(run);
                run = new ArrayList<>();
            } else {
                run.add(f.name());
            }
        }
        runs.add(run);
        for (List<String> r : runs) {
            for (int i = 0; i + s.intraL0Min <= r.size(); ) {
                int len = Math.min(s.intraL0Max, r.size() - i);
                List<String> batch = List.copyOf(r.subList(i, i + len));
                for (String f : batch) {
                    mine.put(f, now);
                }
                out.add(new Action.CompactFiles(
                        p,
                        batch,
                        0,
                        String.format(
                                "deferral stage 2 in '%s': intra-L0 merge of %d files contiguous by sequence number"
                                        + " (L0 %d files, stall trigger %d)",
                                p, batch.size(), ls.l0Files(), ls.l0SlowdownTrigger())));
                i += len;
            }
        }
    }

    /** Drops issued files that left L0 (merged) or whose compaction did not start within the timeout. */
    private void forgetGone(String p, LsmSnapshot ls, long now) {
        Map<String, Long> mine = issued.get(p);
        if (mine == null || mine.isEmpty()) {
            return;
        }
        Set<String> present = new HashSet<>();
        Set<String> busy = new HashSet<>();
        if (!ls.levels().isEmpty()) {
            for (SstFile f : ls.levels().get(0).files()) {
                present.add(f.name());
                if (f.beingCompacted()) {
                    busy.add(f.name());
                }
            }
        }
        mine.entrySet()
                .removeIf(e -> !present.contains(e.getKey())
                        || (!busy.contains(e.getKey()) && now - e.getValue() > s.pendingTimeoutNanos));
    }
}
