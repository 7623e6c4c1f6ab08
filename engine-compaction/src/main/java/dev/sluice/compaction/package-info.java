/**
 * Compaction control (docs/architecture.md §3.4): ADOC's dataflow-overflow tuner (ADOC §5), FlexEngine's two-stage compaction
 * deferral (FlexEngine §4.3), vLSM's short, narrow compaction chains (vLSM §4) and CruiseDB's compaction priority
 * (CruiseDB §VI-B), each a pure {@code ControlLoop} registered through {@code ControlLoopProvider}. Built so far: {@code
 * adoc} (ADOC), {@code cruise} (CruiseDB compaction priority) and {@code vlsm} (vLSM).
 *
 * <p>May depend on engine-core only; actuation goes through {@code dev.sluice.core.control.Actuators}.
 */
package dev.sluice.compaction;
