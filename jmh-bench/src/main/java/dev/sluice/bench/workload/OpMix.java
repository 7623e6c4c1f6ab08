package dev.sluice.bench.workload;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;

/** Relative weights of the operation kinds of a phase, e.g. {@code insert:50, read:50}. Immutable. */
public final class OpMix {
    private final Map<OpKind, Double> weights;
    private final OpKind[] kinds;
    private final double[] cumulative;

    public OpMix(Map<OpKind, Double> weights) {
        EnumMap<OpKind, Double> w = new EnumMap<>(OpKind.class);
        double total = 0;
        for (Map.Entry<OpKind, Double> e : weights.entrySet()) {
            if (!(e.getValue() >= 0) || Double.isInfinite(e.getValue())) {
                throw new IllegalArgumentException("weight of " + e.getKey().id() + " must be a finite number >= 0");
            }
            if (e.getValue() > 0) {
                w.put(e.getKey(), e.getValue());
                total += e.getValue();
            }
        }
        if (total <= 0) {
            throw new IllegalArgumentException("at least one operation needs a weight > 0");
        }
        this.weights = Collections.unmodifiableMap(w);
        this.kinds = w.keySet().toArray(new OpKind[0]);
        this.cumulative = new double[kinds.length];
        double c = 0;
        for (int i = 0; i < kinds.length; i++) {
            c += w.get(kinds[i]) / total;
            cumulative[i] = c;
        }
        cumulative[kinds.length - 1] = 1.0;
    }

    /** The kind for a uniform draw {@code u} in [0, 1). */
    public OpKind pick(double u) {
        for (int i = 0; i < cumulative.length; i++) {
            if (u < cumulative[i]) {
                return kinds[i];
            }
        }
        return kinds[kinds.length - 1];
    }

    public Map<OpKind, Double> weights() {
        return weights;
    }

    /** Fraction of operations of this kind. */
    public double fraction(OpKind k) {
        double total =
                weights.values().stream().mapToDouble(Double::doubleValue).sum();
        return weights.getOrDefault(k, 0.0) / total;
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(", ");
        weights.forEach((k, v) -> j.add(k.id() + ":" + (v == Math.rint(v) ? String.valueOf(v.longValue()) : v)));
        return j.toString();
    }
}
