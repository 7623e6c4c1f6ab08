/**
 * CruiseDB's compaction priority (CruiseDB §VI-B-1): a level far over its expected size is compacted before
 * memory→L1 work. Pure controller; actuation is {@code compactFiles} through the control plane.
 */
package dev.sluice.compaction.cruise;
