package dev.sluice.core;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.sensor.LsmSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for the snapshot fields, per partition (tag {@code partition}). They read the latest snapshot the
 * control plane took, so reading metrics costs nothing extra. All of a node's meters (these, the request timers and
 * rejection counters) leave the registry when the node closes; the control-event counters are shared and stay.
 */
final class NodeMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    NodeMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void register(String partition, PartitionSampler sampler) {
        Supplier<LsmSnapshot> latest = sampler::latest;
        gauge(
                "sluice.memtable.watermark",
                "Memtable bytes / memtable budget (CruiseDB's y_k)",
                partition,
                latest,
                LsmSnapshot::memtableWatermark);
        gauge(
                "sluice.unmerged.watermark",
                "(Memtable bytes + L0 bytes not yet merged into a deeper level) / memtable budget (SP-LSM's y_k)",
                partition,
                latest,
                LsmSnapshot::unmergedWatermark);
        gauge("sluice.memtable.bytes", "Active + immutable memtable bytes", partition, latest, s -> s.memtableBytes());
        gauge(
                "sluice.memtable.immutable",
                "Immutable memtables waiting for flush",
                partition,
                latest,
                s -> s.immutableMemtables());
        gauge("sluice.l0.files", "Files in L0", partition, latest, s -> s.l0Files());
        gauge(
                "sluice.compaction.pending.bytes",
                "Estimated pending compaction bytes",
                partition,
                latest,
                s -> s.pendingCompactionBytes());
        gauge(
                "sluice.stall",
                "Write stall: 0 normal, 1 delayed, 2 stopped",
                partition,
                latest,
                s -> s.stall().ordinal());
        gauge("sluice.flushes.running", "Running flushes", partition, latest, s -> s.runningFlushes());
        gauge("sluice.compactions.running", "Running compactions", partition, latest, s -> s.runningCompactions());
        gauge("sluice.background.jobs.max", "max_background_jobs", partition, latest, s -> s.maxBackgroundJobs());
        gauge("sluice.write.buffer.size", "write_buffer_size", partition, latest, s -> s.writeBufferSize());
        gauge(
                "sluice.admission.rate",
                "Admission rate (requests/s; NaN when open)",
                partition,
                latest,
                s -> Double.isInfinite(s.admissionRate()) ? Double.NaN : s.admissionRate());
        gauge("sluice.admission.queued", "Requests waiting for admission", partition, latest, s -> s.admissionQueued());
        gauge(
                "sluice.write.amplification",
                "Engine bytes written per user byte (cumulative)",
                partition,
                latest,
                LsmSnapshot::writeAmplification);
        gauge("sluice.sst.bytes", "Total SST bytes", partition, latest, LsmSnapshot::totalSstBytes);
        gauge(
                "sluice.health",
                "Background-error state: 0 healthy, 1 background error (writes accepted), 2 writes stopped"
                        + " (see Partition.health(), Partition.resume())",
                partition,
                latest,
                s -> s.health().level());
        meters.add(FunctionCounter.builder(
                        "sluice.stall.micros", sampler, sm -> orZero(sm::latest, s -> s.stallMicros()))
                .description("Cumulative microseconds writers were stalled")
                .tag("partition", partition)
                .register(registry));
        for (IoClass c : IoClass.values()) {
            meters.add(FunctionCounter.builder(
                            "sluice.io.bytes",
                            sampler,
                            sm -> orZero(
                                    sm::latest, s -> Math.max(0, s.io().get(c).bytes())))
                    .description("Bytes of file I/O by class")
                    .tag("partition", partition)
                    .tag("class", c.name())
                    .register(registry));
            meters.add(FunctionCounter.builder(
                            "sluice.io.ops",
                            sampler,
                            sm -> orZero(
                                    sm::latest, s -> Math.max(0, s.io().get(c).ops())))
                    .description("File I/O operations by class")
                    .tag("partition", partition)
                    .tag("class", c.name())
                    .register(registry));
        }
    }

    /** Meters registered elsewhere (request timers) that must also leave the registry when the node closes. */
    void adopt(List<Meter> others) {
        meters.addAll(others);
    }

    private void gauge(
            String name, String doc, String partition, Supplier<LsmSnapshot> latest, ToDoubleFunction<LsmSnapshot> f) {
        // Micrometer holds gauge state weakly and this supplier has no other owner: keep it strongly.
        meters.add(Gauge.builder(name, latest, l -> orNaN(l, f))
                .strongReference(true)
                .description(doc)
                .tag("partition", partition)
                .register(registry));
    }

    private static double orNaN(Supplier<LsmSnapshot> l, ToDoubleFunction<LsmSnapshot> f) {
        LsmSnapshot s = l.get();
        return s == null ? Double.NaN : f.applyAsDouble(s);
    }

    private static double orZero(Supplier<LsmSnapshot> l, ToDoubleFunction<LsmSnapshot> f) {
        LsmSnapshot s = l.get();
        return s == null ? 0 : f.applyAsDouble(s);
    }

    @Override
    public void close() {
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
