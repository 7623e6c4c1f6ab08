package dev.sluice.bench.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where the CPU went in one window: this process's CPU time, and the whole machine's busy and steal shares from the
 * aggregate {@code cpu} line of {@code /proc/stat} (Linux).
 *
 * <p><b>Why.</b> A benchmark second can be slow because the engine waited on the device or because the process did not
 * get the CPU: on a 2-core VM the emulated device's delays are timed by threads that must be scheduled, so a starved
 * process sees every I/O class's device time rise at once. Official run 23 of {@code cruise-a-variant}
 * (docs/benchmarks.md) had 40 such seconds and no record that could tell the two apart. Steal is the time the
 * hypervisor ran something else while this VM had work ({@code proc(5)}: "stolen time, which is the time spent in other
 * operating systems when running in a virtualized environment"); machine busy minus this process's share is other
 * processes on the same machine.
 *
 * <p>Each {@link #sample()} returns the shares since the previous one. Not thread-safe: one recorder thread samples.
 */
public final class CpuMeter {
    /**
     * One interval.
     *
     * @param processCores this process's CPU time (all threads, user + system) per wall-clock second: 1.5 = one and a
     *     half cores busy on average; null when the JVM does not report process CPU time
     * @param machineBusy the share of all the machine's CPUs busy in the interval (every process and the kernel; not
     *     idle, not I/O wait, not steal), 0–1; null without /proc/stat
     * @param steal the share of all the machine's CPUs the hypervisor gave to others while this machine had work, 0–1;
     *     null without /proc/stat
     */
    public record Shares(Double processCores, Double machineBusy, Double steal) {}

    /** Jiffies from the aggregate line: total (all ten fields) and busy, steal parts. */
    record Ticks(long total, long busy, long steal) {
        Ticks minus(Ticks o) {
            return new Ticks(total - o.total, busy - o.busy, steal - o.steal);
        }
    }

    private final LongSupplier clockNanos;
    private final LongSupplier processCpuNanos;
    private final Supplier<Ticks> machine;
    private long lastWall;
    private long lastCpu;
    private Ticks lastTicks;

    /** The meter over this process and /proc/stat, started now. */
    public CpuMeter() {
        this(System::nanoTime, ProcStatus::cpuNanos, CpuMeter::readProcStat);
    }

    CpuMeter(LongSupplier clockNanos, LongSupplier processCpuNanos, Supplier<Ticks> machine) {
        this.clockNanos = clockNanos;
        this.processCpuNanos = processCpuNanos;
        this.machine = machine;
        this.lastWall = clockNanos.getAsLong();
        this.lastCpu = processCpuNanos.getAsLong();
        this.lastTicks = machine.get();
    }

    /** The shares since the previous sample (or since construction), then starts the next interval. */
    public Shares sample() {
        long wall = clockNanos.getAsLong();
        long cpu = processCpuNanos.getAsLong();
        Ticks ticks = machine.get();
        Double process = null;
        if (wall > lastWall && cpu >= 0 && lastCpu >= 0 && cpu >= lastCpu) {
            process = round3((double) (cpu - lastCpu) / (wall - lastWall));
        }
        Double busy = null;
        Double steal = null;
        if (ticks != null && lastTicks != null) {
            Ticks d = ticks.minus(lastTicks);
            if (d.total() > 0 && d.busy() >= 0 && d.steal() >= 0) {
                busy = round3((double) d.busy() / d.total());
                steal = round3((double) d.steal() / d.total());
            }
        }
        lastWall = wall;
        lastCpu = cpu;
        lastTicks = ticks;
        return new Shares(process, busy, steal);
    }

    /**
     * Parses the aggregate {@code cpu} line of /proc/stat: {@code user nice system idle iowait irq softirq steal guest
     * guest_nice}. Busy = user + nice + system + irq + softirq (guest time is already inside user and nice); total =
     * the first eight fields. Null when the line is missing or malformed.
     */
    static Ticks parse(String line) {
        if (line == null || !line.startsWith("cpu ")) {
            return null;
        }
        String[] f = line.substring(4).trim().split("\\s+");
        if (f.length < 8) {
            return null;
        }
        try {
            long[] v = new long[8];
            for (int i = 0; i < 8; i++) {
                v[i] = Long.parseLong(f[i]);
            }
            long busy = v[0] + v[1] + v[2] + v[5] + v[6];
            long total = busy + v[3] + v[4] + v[7];
            return new Ticks(total, busy, v[7]);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Ticks readProcStat() {
        try (var lines = Files.lines(Path.of("/proc/stat"))) {
            return parse(lines.findFirst().orElse(null));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static double round3(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
