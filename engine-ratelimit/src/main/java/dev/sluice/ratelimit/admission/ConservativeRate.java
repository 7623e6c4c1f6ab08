package dev.sluice.ratelimit.admission;

/**
 * CruiseDB's conservative estimate of an LSM tree's processing capacity (§V-B, Eq. 3): in one second the device must
 * do the amplified user reads, the amplified compaction writes and the compaction reads of the same amount, so
 *
 * <pre>
 *   T_c·P_r·R_RA·s_r / T_R  +  T_c·P_w·R_WA·s_w / T_W  +  T_c·P_w·R_WA·s_w / T_R  =  1
 * </pre>
 *
 * where {@code T_c} is in requests/s, {@code P_r + P_w = 1} are the read and write shares of requests, {@code R_RA} and
 * {@code R_WA} the read and write amplification (device bytes per user byte), {@code s_r}/{@code s_w} the user bytes per
 * read/write request, and {@code T_R}/{@code T_W} the device's read and write throughput in bytes/s. The paper writes
 * Eq. 3 per unit of data; multiplying by the request sizes turns it into requests/s, which is what the gate counts.
 *
 * <p>Worked example: P_r = P_w = 0.5, 1 KiB values (s_r = s_w = 1040 B with 16 B keys), R_RA = 4, R_WA = 10, T_R = T_W =
 * 100 MB/s: denominator = 0.5·4·1040/1e8 + 0.5·10·1040/1e8 + 0.5·10·1040/1e8 = 1.248e-4 s, so T_c ≈ 8,013 requests/s.
 */
public final class ConservativeRate {
    private ConservativeRate() {}

    /** T_c in requests/s; {@code Double.NaN} when an input is missing or not positive. */
    public static double requestsPerSecond(
            double readShare,
            double writeShare,
            double readAmplification,
            double writeAmplification,
            double bytesPerRead,
            double bytesPerWrite,
            double deviceReadBytesPerSecond,
            double deviceWriteBytesPerSecond) {
        if (!(deviceReadBytesPerSecond > 0) || !(deviceWriteBytesPerSecond > 0)) {
            return Double.NaN;
        }
        double denom = readShare * readAmplification * bytesPerRead / deviceReadBytesPerSecond
                + writeShare * writeAmplification * bytesPerWrite / deviceWriteBytesPerSecond
                + writeShare * writeAmplification * bytesPerWrite / deviceReadBytesPerSecond;
        return denom > 0 ? 1 / denom : Double.NaN;
    }
}
