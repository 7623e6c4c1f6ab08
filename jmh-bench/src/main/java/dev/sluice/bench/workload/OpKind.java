package dev.sluice.bench.workload;

import java.util.Locale;

/**
 * The operations a phase mixes (YCSB's vocabulary). INSERT writes a new key (the key space grows); UPDATE overwrites an
 * existing key; READ is a point get; SCAN reads a short range starting at an existing key; RMW is a get followed by a
 * put of the same key, timed as one operation.
 */
public enum OpKind {
    INSERT,
    UPDATE,
    READ,
    SCAN,
    RMW;

    /** The name used in scenario files and results.json. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean writes() {
        return this == INSERT || this == UPDATE || this == RMW;
    }

    /** Parses {@code insert|update|read|scan|rmw|read-modify-write}; null when unknown. */
    public static OpKind parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        if (v.equals("read-modify-write") || v.equals("readmodifywrite")) {
            return RMW;
        }
        for (OpKind k : values()) {
            if (k.id().equals(v)) {
                return k;
            }
        }
        return null;
    }
}
