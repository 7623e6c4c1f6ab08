/**
 * ADOC's automatic data overflow control (ADOC, FAST'23 §4–§5): a pure controller that detects memtable, L0 and
 * redundancy overflows per partition and tunes background threads and batch size by AIMD. Design note with formulas
 * and a worked example: {@code ADOC.md} in this directory.
 *
 * <p>May depend on engine-core only; actuation goes through {@code Action.SetMaxBackgroundJobs} and {@code
 * Action.SetWriteBufferSize}.
 */
package dev.sluice.compaction.adoc;
