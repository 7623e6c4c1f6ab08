/**
 * The RocksDB binding of engine-compaction: profiles (RocksDB {@code Options}) that go with its controllers, such as
 * vLSM's {@code vlsm} and {@code rocksdb-8mb}. Kept apart from the controller packages, which are engine-neutral: the
 * Cassandra plugin ships those without rocksdbjni and leaves this package out (docs/architecture.md §3.7).
 */
package dev.sluice.compaction.rocksdb;
