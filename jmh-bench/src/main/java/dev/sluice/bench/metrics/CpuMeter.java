package dev.sluice.bench.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where the CPU went in one window: this process's CPU time, the whole machine's busy, steal and I/O-wait shares from
 * the aggregate {@code cpu} line of {@code /proc/stat}, and the share of the time every task with work was stalled on
 * I/O, from {@code /proc/pressure/io} (Linux pressure stall information).
 *
 * <p><b>Why.</b> A benchmark second can be slow because the engine waited on the device or because the process did not
 * get the CPU: on a 2-core VM the emulated device's delays are timed by threads that must be scheduled, so a starved
 * process sees every I/O class's device time rise at once. Official run 23 of {@code cruise-a-variant}
 * (docs/benchmarks.md) had 40 such seconds and no record that could tell the two apart. Steal is the time the
 * hypervisor ran something else while this VM had work ({@code proc(5)}: "stolen time, which is the time spent in other
 * operating systems when running in a virtualized environment"); machine busy minus this process's share is other
 * processes on the same machine.
 *
 * <p>The I/O-stall share says when the machine's own disk, under the emulated device, held everything up: in experiment
 * 33 (docs/benchmarks.md) single seconds fell to 1,500–2,300 ops/s with reads' device time at 33 ms each, the process
 * on 0.15–0.19 of a core, no steal and the emulated device far from its limits, two of the three as a large compaction
 * ended (its outputs synced, its inputs deleted on the host's file system); nothing recorded could confirm the host's
 * disk.
 * PSI's "full" line counts the time in which all non-idle tasks were stalled on I/O at once ({@code
 * Documentation/accounting/psi.rst} in the Linux sources).
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
     * @param ioWait the share of all the machine's CPUs idle while some task waited for I/O, 0–1; null without
     *     /proc/stat
     * @param ioStalled the share of the wall-clock time in which every task with work was stalled on I/O (PSI {@code
     *     full}), 0–1; null without /proc/pressure/io (kernels before 4.20 or without CONFIG_PSI)
     */
    public record Shares(Double processCores, Double machineBusy, Double steal, Double ioWait, Double ioStalled) {}

    /** Jiffies from the aggregate line: total (the first eight fields) and the busy, steal and iowait parts. */
    record Ticks(long total, long busy, long steal, long iowait) {
        Ticks minus(Ticks o) {
            return new Ticks(total - o.total, busy - o.busy, steal - o.steal, iowait - o.iowait);
        }
    }

    private final LongSupplier clockNanos;
    private final LongSupplier processCpuNanos;
    private final Supplier<Ticks> machine;
    private final LongSupplier ioFullMicros;
    private long lastWall;
    private long lastCpu;
    private Ticks lastTicks;
    private long lastIoFull;

    /** The meter over this process, /proc/stat and /proc/pressure/io, started now. */
    public CpuMeter() {
        this(System::nanoTime, ProcStatus::cpuNanos, CpuMeter::readProcStat, CpuMeter::readIoFullMicros);
    }

    /**
     * @param ioFullMicros PSI's cumulative "full" I/O stall time in microseconds, or a negative value when unknown
     */
    CpuMeter(
            LongSupplier clockNanos, LongSupplier processCpuNanos, Supplier<Ticks> machine, LongSupplier ioFullMicros) {
        this.clockNanos = clockNanos;
        this.processCpuNanos = processCpuNanos;
        this.machine = machine;
        this.ioFullMicros = ioFullMicros;
        this.lastWall = clockNanos.getAsLong();
        this.lastCpu = processCpuNanos.getAsLong();
        this.lastTicks = machine.get();
        this.lastIoFull = ioFullMicros.getAsLong();
    }

    /** The shares since the previous sample (or since construction), then starts the next interval. */
    public Shares sample() {
        long wall = clockNanos.getAsLong();
        long cpu = processCpuNanos.getAsLong();
        Ticks ticks = machine.get();
        long ioFull = ioFullMicros.getAsLong();
        Double process = null;
        if (wall > lastWall && cpu >= 0 && lastCpu >= 0 && cpu >= lastCpu) {
            process = round3((double) (cpu - lastCpu) / (wall - lastWall));
        }
        Double busy = null;
        Double steal = null;
        Double ioWait = null;
        if (ticks != null && lastTicks != null) {
            Ticks d = ticks.minus(lastTicks);
            if (d.total() > 0 && d.busy() >= 0 && d.steal() >= 0 && d.iowait() >= 0) {
                busy = round3((double) d.busy() / d.total());
                steal = round3((double) d.steal() / d.total());
                ioWait = round3((double) d.iowait() / d.total());
            }
        }
        Double ioStalled = null;
        if (wall > lastWall && ioFull >= 0 && lastIoFull >= 0 && ioFull >= lastIoFull) {
            ioStalled = round3(Math.min(1.0, (ioFull - lastIoFull) * 1000.0 / (wall - lastWall)));
        }
        lastWall = wall;
        lastCpu = cpu;
        lastTicks = ticks;
        lastIoFull = ioFull;
        return new Shares(process, busy, steal, ioWait, ioStalled);
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
            return new Ticks(total, busy, v[7], v[4]);
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

    /**
     * The {@code total=} of the {@code full} line of /proc/pressure/io ({@code full avg10=0.00 avg60=0.00 avg300=0.00
     * total=12345}, microseconds); -1 when the file, the line or the field is missing or malformed.
     */
    static long parseIoFull(String pressure) {
        if (pressure == null) {
            return -1;
        }
        for (String line : pressure.split("\n")) {
            if (line.startsWith("full ")) {
                for (String field : line.trim().split("\\s+")) {
                    if (field.startsWith("total=")) {
                        try {
                            return Long.parseLong(field.substring("total=".length()));
                        } catch (NumberFormatException e) {
                            return -1;
                        }
                    }
                }
            }
        }
        return -1;
    }

    private static long readIoFullMicros() {
        try (var in = Files.newInputStream(Path.of("/proc/pressure/io"))) { // streamed: /proc sizes are not real
            return parseIoFull(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static double round3(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
