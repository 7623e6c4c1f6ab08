/**
 * vLSM's short, narrow compaction chains (vLSM §4): the {@code vlsm} profile (small SSTs, L1 = f × SST, Φ between L1
 * and L2, overlap-cut and least-overlap-picked L1 files), the {@code rocksdb-8mb} ablation profile, and the pure
 * {@code vlsm-l0} controller that moves one L0 SST at a time, oldest first, into L1. Design note: VLSM.md.
 *
 * <p>May depend on engine-core only (and RocksDB option types in the profiles); actuation goes through the control
 * plane's {@code compactFiles} and {@code level0} trigger actions.
 */
package dev.sluice.compaction.vlsm;
