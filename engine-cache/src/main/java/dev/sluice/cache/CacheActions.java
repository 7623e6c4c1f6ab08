package dev.sluice.cache;

import dev.sluice.core.control.Action;
import dev.sluice.core.control.Actuators;
import java.util.List;

/**
 * The Calcspar cache's actions. They turn knobs of the cache, not of the engine: each holds the {@link CacheActuator}
 * it applies to (the cache the provider created next to the controller) and ignores the engine's {@link Actuators}.
 * Each is recorded as a {@code ControlEvent} like any other action.
 */
final class CacheActions {
    private CacheActions() {}

    /** Switches the cache's policy (node level: one cache space). */
    record SetCacheMode(CacheMode mode, String reason, CacheActuator cache) implements Action {
        public String partition() {
            return "*";
        }

        public String knobName() {
            return "calcspar_cache_mode";
        }

        public void applyTo(Actuators a) {
            cache.setMode(mode);
        }

        public String describe() {
            return "calcspar_cache_mode=" + mode.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Sets the prefetcher's budget of spare I/O units per second. */
    record SetPrefetchBudget(double unitsPerSecond, String reason, CacheActuator cache) implements Action {
        public String partition() {
            return "*";
        }

        public String knobName() {
            return "calcspar_prefetch_budget";
        }

        public void applyTo(Actuators a) {
            cache.setPrefetchBudget(unitsPerSecond);
        }

        public String describe() {
            return String.format("calcspar_prefetch_budget=%.0f units/s", unitsPerSecond);
        }
    }

    /** Cuts the partition's hotness table into blocks of its current SST files. */
    record SetBlockLayout(String partition, List<HotnessTable.Extent> files, String reason, CacheActuator cache)
            implements Action {
        SetBlockLayout {
            files = List.copyOf(files);
        }

        public String knobName() {
            return "calcspar_block_layout";
        }

        public void applyTo(Actuators a) {
            cache.setLayout(partition, files);
        }

        public String describe() {
            return "calcspar_block_layout=" + files.size() + " files";
        }
    }

    /** Re-warms the key ranges of the partition's L0/L1 files (§4.3). */
    record Rewarm(String partition, List<CacheActuator.KeyRangeBytes> ranges, String reason, CacheActuator cache)
            implements Action {
        Rewarm {
            ranges = List.copyOf(ranges);
        }

        public String knobName() {
            return "calcspar_rewarm";
        }

        public void applyTo(Actuators a) {
            cache.rewarm(partition, ranges);
        }

        public String describe() {
            return "calcspar_rewarm=" + ranges.size() + " L0/L1 files";
        }
    }
}
