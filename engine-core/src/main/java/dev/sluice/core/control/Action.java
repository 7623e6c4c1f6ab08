package dev.sluice.core.control;

import dev.sluice.core.spi.IoControl;
import java.util.List;
import java.util.function.Consumer;

/**
 * One decision of a controller: which knob of which partition to set, to what, and why. Actions are values; the
 * {@link ControlPlane} applies them with {@link #applyTo(Actuators)} and records each as a {@link ControlEvent}.
 *
 * <p>{@link #knob()} names the knob ("partition/knob"); when two controllers set the same knob in one tick the plane
 * keeps the one from the controller listed first in {@code controls} and records the other as superseded.
 */
public interface Action {
    /** Partition the action targets, or {@code "*"} for node-level knobs. */
    String partition();

    /** A stable name of the knob, unique per partition. */
    String knobName();

    String reason();

    void applyTo(Actuators actuators);

    /** Short human-readable description, e.g. {@code write_buffer_size=128MiB}. */
    String describe();

    default String knob() {
        return partition() + "/" + knobName();
    }

    record SetAdmissionRate(String partition, double requestsPerSecond, String reason) implements Action {
        public String knobName() {
            return "admission_rate";
        }

        public void applyTo(Actuators a) {
            a.setAdmissionRate(partition, requestsPerSecond);
        }

        public String describe() {
            return Double.isInfinite(requestsPerSecond)
                    ? "admission_rate=open"
                    : String.format("admission_rate=%.0f/s", requestsPerSecond);
        }
    }

    record SetMaxBackgroundJobs(String partition, int jobs, String reason) implements Action {
        public String knobName() {
            return "max_background_jobs";
        }

        public void applyTo(Actuators a) {
            a.setMaxBackgroundJobs(partition, jobs);
        }

        public String describe() {
            return "max_background_jobs=" + jobs;
        }
    }

    record SetMaxSubcompactions(String partition, int subcompactions, String reason) implements Action {
        public String knobName() {
            return "max_subcompactions";
        }

        public void applyTo(Actuators a) {
            a.setMaxSubcompactions(partition, subcompactions);
        }

        public String describe() {
            return "max_subcompactions=" + subcompactions;
        }
    }

    record SetWriteBufferSize(String partition, long bytes, String reason) implements Action {
        public String knobName() {
            return "write_buffer_size";
        }

        public void applyTo(Actuators a) {
            a.setWriteBufferSize(partition, bytes);
        }

        public String describe() {
            return "write_buffer_size=" + Bytes.human(bytes);
        }
    }

    record SetMaxWriteBufferNumber(String partition, int count, String reason) implements Action {
        public String knobName() {
            return "max_write_buffer_number";
        }

        public void applyTo(Actuators a) {
            a.setMaxWriteBufferNumber(partition, count);
        }

        public String describe() {
            return "max_write_buffer_number=" + count;
        }
    }

    record SetLevelTargets(
            String partition, long levelBaseBytes, double multiplier, List<Integer> multiplierAdditional, String reason)
            implements Action {
        public SetLevelTargets {
            multiplierAdditional = List.copyOf(multiplierAdditional);
        }

        public String knobName() {
            return "level_targets";
        }

        public void applyTo(Actuators a) {
            a.setLevelTargets(partition, levelBaseBytes, multiplier, multiplierAdditional);
        }

        public String describe() {
            return "max_bytes_for_level_base=" + Bytes.human(levelBaseBytes) + " multiplier=" + multiplier
                    + (multiplierAdditional.isEmpty() ? "" : " additional=" + multiplierAdditional);
        }
    }

    record SetL0Triggers(String partition, int compactionTrigger, int slowdownTrigger, int stopTrigger, String reason)
            implements Action {
        public String knobName() {
            return "l0_triggers";
        }

        public void applyTo(Actuators a) {
            a.setL0Triggers(partition, compactionTrigger, slowdownTrigger, stopTrigger);
        }

        public String describe() {
            return "level0 triggers compaction=" + compactionTrigger + " slowdown=" + slowdownTrigger + " stop="
                    + stopTrigger;
        }
    }

    record SetPendingCompactionLimits(String partition, long softBytes, long hardBytes, String reason)
            implements Action {
        public String knobName() {
            return "pending_compaction_limits";
        }

        public void applyTo(Actuators a) {
            a.setPendingCompactionLimits(partition, softBytes, hardBytes);
        }

        public String describe() {
            return "pending_compaction_bytes soft=" + Bytes.human(softBytes) + " hard=" + Bytes.human(hardBytes);
        }
    }

    record SetCompactionConcurrency(String partition, int maxConcurrent, String reason) implements Action {
        public String knobName() {
            return "compaction_concurrency";
        }

        public void applyTo(Actuators a) {
            a.setCompactionConcurrency(partition, maxConcurrent);
        }

        public String describe() {
            return "compaction_concurrency=" + (maxConcurrent < 0 ? "unlimited" : maxConcurrent);
        }
    }

    record SetAutoCompactions(String partition, boolean enabled, String reason) implements Action {
        public String knobName() {
            return "auto_compactions";
        }

        public void applyTo(Actuators a) {
            a.setAutoCompactions(partition, enabled);
        }

        public String describe() {
            return "auto_compactions=" + (enabled ? "on" : "off");
        }
    }

    /**
     * A compaction-deferral stage change (FlexEngine §4.3): 0 = normal, 1 = deep compactions suspended, 2 = L0→L1
     * suspended too, intra-L0 merges only. It turns no engine knob itself (the deferral controller's other actions do);
     * it exists so that every stage change is recorded as a control event naming the partition and the measured values.
     */
    record SetDeferralStage(String partition, int stage, String reason) implements Action {
        public String knobName() {
            return "deferral_stage";
        }

        public void applyTo(Actuators a) {
            a.setDeferralStage(partition, stage);
        }

        public String describe() {
            return "deferral_stage=" + stage;
        }
    }

    /** A manual compaction; its knob includes the first file so that disjoint batches do not supersede each other. */
    record CompactFiles(String partition, List<String> fileNames, int outputLevel, String reason) implements Action {
        public CompactFiles {
            fileNames = List.copyOf(fileNames);
            if (fileNames.isEmpty()) {
                throw new IllegalArgumentException("CompactFiles needs at least one file");
            }
        }

        public String knobName() {
            return "compact_files:" + fileNames.get(0);
        }

        public void applyTo(Actuators a) {
            a.compactFiles(partition, fileNames, outputLevel, reason);
        }

        public String describe() {
            return "compact_files " + fileNames + " -> L" + outputLevel;
        }
    }

    /**
     * A change to the priority Env's scheduler. {@code knobName} distinguishes independent I/O knobs (e.g.
     * "io_policy", "io_rate:USER_GET"). Fails with {@link UnsupportedOperationException} when the node has no priority
     * Env.
     */
    record ConfigureIo(String knobName, String describe, Consumer<IoControl> change, String reason) implements Action {
        public String partition() {
            return "*";
        }

        public void applyTo(Actuators a) {
            change.accept(a.io().orElseThrow(() -> new UnsupportedOperationException("'" + knobName
                    + "' needs the priority Env (env=priority), but this node runs on RocksDB's default Env")));
        }
    }
}
