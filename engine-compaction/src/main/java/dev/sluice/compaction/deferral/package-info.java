/**
 * FlexEngine's two-stage compaction deferral (FlexEngine §4.3): controller {@code deferral}. Pure controller; it holds
 * compactions back with per-partition {@code disable_auto_compactions}, lifted pending-compaction limits and
 * {@code compactFiles} (L0→L1 in stage 1, intra-L0 in stage 2). DEFERRAL.md in this package is the design note.
 */
package dev.sluice.compaction.deferral;
