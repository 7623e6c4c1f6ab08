package dev.sluice.core.control;

/** Formatting of byte counts for logs and events. */
public final class Bytes {
    private Bytes() {}

    public static String human(long bytes) {
        if (bytes < 0) {
            return Long.toString(bytes);
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0
                ? bytes + "B"
                : (v == Math.rint(v) ? String.format("%.0f%s", v, units[u]) : String.format("%.1f%s", v, units[u]));
    }
}
