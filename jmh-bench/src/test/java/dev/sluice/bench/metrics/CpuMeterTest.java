package dev.sluice.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-window CPU shares: /proc/stat parsing and the deltas between samples. */
class CpuMeterTest {
    @Test
    void parsesTheAggregateLine() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        CpuMeter.Ticks t = CpuMeter.parse("cpu  100 5 40 800 20 3 2 30 7 0");
        assertThat(t).isNotNull();
        assertThat(t.busy()).isEqualTo(100 + 5 + 40 + 3 + 2);
        assertThat(t.steal()).isEqualTo(30);
        assertThat(t.iowait()).isEqualTo(20);
        assertThat(t.total()).isEqualTo(150 + 800 + 20 + 30); // guest time is inside user: not counted twice
    }

    @Test
    void refusesWhatIsNotTheAggregateLine() {
        assertThat(CpuMeter.parse(null)).isNull();
        assertThat(CpuMeter.parse("cpu0 1 2 3 4 5 6 7 8")).isNull();
        assertThat(CpuMeter.parse("cpu  1 2 3")).isNull(); // too few fields
        assertThat(CpuMeter.parse("cpu  1 2 x 4 5 6 7 8")).isNull();
    }

    @Test
    void sharesAreDeltasBetweenSamples() {
        Deque<Long> clock = new ArrayDeque<>(List.of(0L, 1_000_000_000L, 3_000_000_000L));
        Deque<Long> cpu = new ArrayDeque<>(List.of(0L, 1_500_000_000L, 2_000_000_000L));
        Deque<CpuMeter.Ticks> ticks = new ArrayDeque<>(List.of(
                new CpuMeter.Ticks(1000, 400, 0, 0),
                new CpuMeter.Ticks(1200, 580, 10, 4), // +200 jiffies: 180 busy, 10 steal, 4 iowait
                new CpuMeter.Ticks(1600, 600, 210, 104))); // +400: 20 busy, 200 steal, 100 iowait
        // PSI "full" I/O stall, microseconds: 0.25 s of the first second, 1.2 s of the next two
        Deque<Long> ioFull = new ArrayDeque<>(List.of(5_000_000L, 5_250_000L, 6_450_000L));
        CpuMeter m = new CpuMeter(clock::removeFirst, cpu::removeFirst, ticks::removeFirst, ioFull::removeFirst);

        CpuMeter.Shares first = m.sample();
        assertThat(first.processCores()).isEqualTo(1.5);
        assertThat(first.machineBusy()).isEqualTo(0.9);
        assertThat(first.steal()).isEqualTo(0.05);
        assertThat(first.ioWait()).isEqualTo(0.02);
        assertThat(first.ioStalled()).isEqualTo(0.25);

        CpuMeter.Shares second = m.sample(); // 0.5 s of CPU over 2 s of wall time
        assertThat(second.processCores()).isEqualTo(0.25);
        assertThat(second.machineBusy()).isEqualTo(0.05);
        assertThat(second.steal()).isEqualTo(0.5);
        assertThat(second.ioWait()).isEqualTo(0.25);
        assertThat(second.ioStalled()).isEqualTo(0.6);
    }

    @Test
    void unknownSourcesGiveNullNotZero() {
        Deque<Long> clock = new ArrayDeque<>(List.of(0L, 1_000_000_000L));
        CpuMeter m = new CpuMeter(clock::removeFirst, () -> -1, () -> null, () -> -1);
        CpuMeter.Shares s = m.sample();
        assertThat(s.processCores()).isNull();
        assertThat(s.machineBusy()).isNull();
        assertThat(s.steal()).isNull();
        assertThat(s.ioWait()).isNull();
        assertThat(s.ioStalled()).isNull();
    }

    @Test
    void parsesPressureStallInformation() {
        String psi = "some avg10=0.53 avg60=1.88 avg300=3.33 total=288676350\n"
                + "full avg10=0.37 avg60=1.50 avg300=2.43 total=223897990\n";
        assertThat(CpuMeter.parseIoFull(psi)).isEqualTo(223_897_990L); // the "full" line, not "some"
        assertThat(CpuMeter.parseIoFull("some avg10=0.53 avg60=1.88 avg300=3.33 total=288676350\n"))
                .isEqualTo(-1); // a file without a "full" line
        assertThat(CpuMeter.parseIoFull("full avg10=0.37 total=12x")).isEqualTo(-1);
        assertThat(CpuMeter.parseIoFull(null)).isEqualTo(-1);
    }

    @Test
    void readsThisMachine() throws InterruptedException {
        CpuMeter m = new CpuMeter();
        long end = System.nanoTime() + 200_000_000L;
        long x = 0;
        while (System.nanoTime() < end) {
            x += Long.numberOfTrailingZeros(x + 1); // keep one core busy
        }
        CpuMeter.Shares s = m.sample();
        assertThat(x).isNotNegative();
        assertThat(s.processCores()).isNotNull().isGreaterThan(0.3);
        assertThat(s.machineBusy()).isNotNull().isGreaterThan(0.0).isLessThanOrEqualTo(1.0);
        assertThat(s.steal()).isNotNull().isBetween(0.0, 1.0);
        assertThat(s.ioWait()).isNotNull().isBetween(0.0, 1.0);
        if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/pressure/io"))) {
            assertThat(s.ioStalled()).isNotNull().isBetween(0.0, 1.0);
        }
    }
}
