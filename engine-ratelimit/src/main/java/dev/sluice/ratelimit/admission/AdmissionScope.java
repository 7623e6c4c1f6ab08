package dev.sluice.ratelimit.admission;

import dev.sluice.core.RequestKind;

/** Which requests pass the gate: every request, as in CruiseDB, or writes only (reads go straight through). */
public enum AdmissionScope {
    ALL,
    WRITES;

    boolean covers(RequestKind kind) {
        return this == ALL || kind == RequestKind.WRITE;
    }

    static AdmissionScope parse(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "all" -> ALL;
            case "writes" -> WRITES;
            default -> throw new IllegalArgumentException("option 'scope' = '" + s + "' must be 'all' or 'writes'");
        };
    }
}
