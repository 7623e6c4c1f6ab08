package dev.sluice.bench.workload;

import java.util.SplittableRandom;

/**
 * Which existing key an UPDATE, READ, SCAN or RMW touches, given the {@code n} keys that exist now (indices {@code [0,
 * n)}; preloaded keys first, then inserted ones in insertion order). Keys are laid out by {@link KeyCodec}, which hashes
 * the index, so popular indices are spread over the key space as YCSB's scrambled distributions are.
 *
 * <ul>
 *   <li>{@code uniform}: every existing key equally likely.
 *   <li>{@code zipfian}: index rank r (0 = most popular) with probability ∝ 1/(r+1)^θ, θ = {@code zipfian.theta}
 *       (YCSB default 0.99); sampled exactly for any n by rejection-inversion (Hörmann &amp; Derflinger 1996).
 *   <li>{@code latest}: zipfian over recency: the most recently inserted key is the most popular (YCSB workload D).
 *   <li>{@code hotspot}: {@code hotspot.ops} of the operations go uniformly to the first {@code hotspot.keys} fraction
 *       of the key space, the rest uniformly to the others (YCSB's hotspot generator).
 * </ul>
 */
public record KeyDistribution(Kind kind, double theta, double hotKeys, double hotOps, long clusterKeys) {
    public enum Kind {
        UNIFORM,
        ZIPFIAN,
        LATEST,
        HOTSPOT,
        /**
         * Mixgraph-like prefix clustering: a cluster of {@code clusterKeys} consecutive indices (adjacent keys with
         * the clustered {@link KeyCodec}) is picked zipfian by rank with {@code theta}, then a key uniformly inside it.
         */
        CLUSTERED
    }

    public KeyDistribution(Kind kind, double theta, double hotKeys, double hotOps) {
        this(kind, theta, hotKeys, hotOps, 0);
    }

    public static KeyDistribution uniform() {
        return new KeyDistribution(Kind.UNIFORM, 0.99, 0.2, 0.8);
    }

    /** An index in {@code [0, n)}; {@code n ≥ 1}. */
    public long next(long n, SplittableRandom rnd) {
        if (n <= 1) {
            return 0;
        }
        return switch (kind) {
            case UNIFORM -> rnd.nextLong(n);
            case ZIPFIAN -> Zipf.sample(n, theta, rnd) - 1;
            case LATEST -> n - Zipf.sample(n, theta, rnd);
            case CLUSTERED -> {
                long c = Math.max(1, clusterKeys);
                long clusters = (n + c - 1) / c;
                long cluster = Zipf.sample(clusters, theta, rnd) - 1;
                long size = Math.min(c, n - cluster * c);
                yield cluster * c + rnd.nextLong(size);
            }
            case HOTSPOT -> {
                long hot = Math.max(1, Math.min(n, (long) Math.ceil(n * hotKeys)));
                if (hot == n || rnd.nextDouble() < hotOps) {
                    yield rnd.nextLong(hot);
                }
                yield hot + rnd.nextLong(n - hot);
            }
        };
    }

    @Override
    public String toString() {
        return switch (kind) {
            case UNIFORM -> "uniform";
            case ZIPFIAN -> "zipfian(theta=" + theta + ")";
            case LATEST -> "latest(theta=" + theta + ")";
            case HOTSPOT -> "hotspot(keys=" + hotKeys + ", ops=" + hotOps + ")";
            case CLUSTERED -> "clustered(keys=" + clusterKeys + ", theta=" + theta + ")";
        };
    }

    /**
     * Rejection-inversion sampling of a Zipf distribution over {@code 1..n} with exponent {@code s > 0}, after W.
     * Hörmann and G. Derflinger, "Rejection-inversion to generate variates from monotone discrete distributions" (1996),
     * as in Apache Commons RNG's {@code RejectionInversionZipfSampler}. O(1) per sample for any n, no table.
     */
    static final class Zipf {
        private Zipf() {}

        static long sample(long n, double s, SplittableRandom rnd) {
            double hIntegralX1 = hIntegral(1.5, s) - 1.0;
            double hIntegralN = hIntegral(n + 0.5, s);
            double sConst = 2.0 - hIntegralInverse(hIntegral(2.5, s) - h(2.0, s), s);
            while (true) {
                double u = hIntegralN + rnd.nextDouble() * (hIntegralX1 - hIntegralN);
                double x = hIntegralInverse(u, s);
                long k = (long) (x + 0.5);
                if (k < 1) {
                    k = 1;
                } else if (k > n) {
                    k = n;
                }
                if (k - x <= sConst || u >= hIntegral(k + 0.5, s) - h(k, s)) {
                    return k;
                }
            }
        }

        private static double h(double x, double s) {
            return Math.exp(-s * Math.log(x));
        }

        private static double hIntegral(double x, double s) {
            double logX = Math.log(x);
            return helper2((1.0 - s) * logX) * logX;
        }

        private static double hIntegralInverse(double x, double s) {
            double t = x * (1.0 - s);
            if (t < -1.0) {
                t = -1.0;
            }
            return Math.exp(helper1(t) * x);
        }

        /** log(1+x)/x, accurate near 0. */
        private static double helper1(double x) {
            return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
        }

        /** (exp(x)−1)/x, accurate near 0. */
        private static double helper2(double x) {
            return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
        }
    }
}
