package dev.sluice.bench.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Resident set size of this process from {@code /proc/self/status} (Linux): VmRSS now and VmHWM, the kernel's
 * high-water mark since the process started. Returns -1 where /proc is unavailable. Covers the Java heap, RocksDB's
 * native memory (memtables, block cache, table readers) and everything else the process maps. Also the process's CPU
 * time (all threads, user + system, from the JVM's {@code OperatingSystemMXBean}).
 */
public final class ProcStatus {
    private ProcStatus() {}

    public static long rssBytes() {
        return field("VmRSS:");
    }

    public static long peakRssBytes() {
        return field("VmHWM:");
    }

    /** CPU time used by this process so far in nanoseconds (all threads, native ones included); -1 if unknown. */
    public static long cpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static long field(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(name)) {
                    String[] parts = line.substring(name.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
