package dev.sluice.ratelimit.quota;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * FlexEngine's partition-level I/O admission (§4.2): each partition's foreground I/O gets a reservation from its quota
 * (Eq. 2), its background I/O (flush, compaction) a budget from its measured ingest (Eq. 3), re-estimated every minute.
 * Pure: time and counters are passed in; no I/O. Not thread-safe: one owner (the control plane's thread).
 *
 * <h2>Eq. 2 — foreground reservation</h2>
 *
 * {@code Foreground BW = RCU/s × 4 KiB × RAF + WCU/s × 1 KiB}. RAF, the read amplification factor, is bounded as in
 * the paper's example: L0 and L1 are cached, so a read touches one SST per deeper level, each read mapping to at most
 * two 4 KiB blocks: {@code RAF = 2 × max(1, deepest level − 1)} (levels L0..L3: 2 × 2 = 4).
 *
 * <h2>Eq. 3 — background budget</h2>
 *
 * {@code Background BW = Data_avg_psec × LSM-BA}. {@code Data_avg_psec} is the partition's user bytes written per second
 * over the last full minute ({@code windowNanos}); before the first minute ends it is the quota's bound {@code WCU/s × 1
 * KiB} (the most the tenant may write; a partition without a write quota starts at 0 and gets the floor). LSM-BA is the
 * paper's bound for a leveled tree with multiplier {@code f} (10) and L0/L1 cached: write amplification {@code 1 (L0) +
 * 2 (L0→L1) + (f+1) per deeper level}, read amplification {@code f (L1→L2) + (f+1) per level below L2} (levels L0..L3:
 * 25 + 21 = 46).
 *
 * <h2>Node level</h2>
 *
 * The node's rate is the device bandwidth. Foreground reservations are kept free: when the background budgets add up to
 * more than {@code node − Σ foreground}, each is scaled down in proportion, but never below {@code floorBytesPerSec}
 * (compaction must not stop altogether). The Env enforces the background budget as a per-partition cap on flush and
 * compaction I/O; the foreground reservation is enforced by leaving it free (foreground I/O has strict priority at the
 * node level), which approximates the paper's reserved foreground path.
 */
public final class FlexBudgets {
    public static final double RCU_BYTES = 4096, WCU_BYTES = 1024;

    /** One partition's inputs at a tick. */
    public record Input(String partition, double rcu, double wcu, long userBytesWritten, int deepestLevel) {}

    /** One partition's budgets. */
    public record Budget(
            String partition,
            double raf,
            double lsmBa,
            double dataAvgPerSec,
            double foregroundBytesPerSec,
            double backgroundBytesPerSec,
            double backgroundCapBytesPerSec) {}

    private final long windowNanos;
    private final double levelMultiplier;
    private final double floorBytesPerSec;
    private final Map<String, long[]> windowStart = new HashMap<>(); // partition -> {time, bytes}
    private final Map<String, Double> dataAvg = new HashMap<>();

    public FlexBudgets(long windowNanos, double levelMultiplier, double floorBytesPerSec) {
        if (windowNanos <= 0 || !(levelMultiplier >= 1) || !(floorBytesPerSec >= 0)) {
            throw new IllegalArgumentException("window must be > 0, multiplier >= 1 and floor >= 0");
        }
        this.windowNanos = windowNanos;
        this.levelMultiplier = levelMultiplier;
        this.floorBytesPerSec = floorBytesPerSec;
    }

    /** Eq. 2. */
    public static double foregroundReservation(double rcu, double wcu, double raf) {
        return rcu * RCU_BYTES * raf + wcu * WCU_BYTES;
    }

    /** Eq. 3. */
    public static double backgroundBudget(double dataAvgPerSec, double lsmBa) {
        return dataAvgPerSec * lsmBa;
    }

    /** RAF bound with L0 and L1 cached: two blocks per SST of each deeper level. */
    public static double readAmplificationFactor(int deepestLevel) {
        return 2.0 * Math.max(1, deepestLevel - 1);
    }

    /** LSM-BA bound (write + read amplification of background I/O) for levels L0..{@code deepestLevel}. */
    public static double lsmBackgroundAmplification(int deepestLevel, double f) {
        int n = Math.max(1, deepestLevel);
        double write = 1 + 2 + (f + 1) * (n - 1);
        double read = n >= 2 ? f + (f + 1) * (n - 2) : 0;
        return write + read;
    }

    /**
     * The budgets at {@code nowNanos}. A partition's {@code Data_avg_psec} changes only when a full window has passed
     * since its last estimate (then it is that window's average).
     */
    public List<Budget> update(long nowNanos, List<Input> inputs, double nodeBytesPerSec) {
        List<Budget> raw = new ArrayList<>();
        double fgSum = 0, bgSum = 0;
        for (Input in : inputs) {
            long[] start = windowStart.get(in.partition());
            if (start == null) {
                windowStart.put(in.partition(), new long[] {nowNanos, in.userBytesWritten()});
                dataAvg.put(in.partition(), in.wcu() * WCU_BYTES);
            } else if (nowNanos - start[0] >= windowNanos) {
                double secs = (nowNanos - start[0]) / 1e9;
                dataAvg.put(in.partition(), Math.max(0, in.userBytesWritten() - start[1]) / secs);
                start[0] = nowNanos;
                start[1] = in.userBytesWritten();
            }
            double raf = readAmplificationFactor(in.deepestLevel());
            double ba = lsmBackgroundAmplification(in.deepestLevel(), levelMultiplier);
            double avg = dataAvg.get(in.partition());
            double fg = foregroundReservation(in.rcu(), in.wcu(), raf);
            double bg = backgroundBudget(avg, ba);
            fgSum += fg;
            bgSum += bg;
            raw.add(new Budget(in.partition(), raf, ba, avg, fg, bg, bg));
        }
        double forBackground = nodeBytesPerSec > 0 ? Math.max(0, nodeBytesPerSec - fgSum) : Double.POSITIVE_INFINITY;
        double scale = bgSum > forBackground ? forBackground / bgSum : 1;
        List<Budget> out = new ArrayList<>(raw.size());
        for (Budget b : raw) {
            double cap = Math.max(floorBytesPerSec, b.backgroundBytesPerSec() * scale);
            out.add(new Budget(
                    b.partition(),
                    b.raf(),
                    b.lsmBa(),
                    b.dataAvgPerSec(),
                    b.foregroundBytesPerSec(),
                    b.backgroundBytesPerSec(),
                    cap));
        }
        return out;
    }
}
