/**
 * A Cassandra 5.0 compaction strategy ({@code SluiceCompactionStrategy}) driven by the same pure controllers as the
 * RocksDB engine, through Cassandra sensors and {@code CassandraActuators} (docs/architecture.md §3.7). Not built yet.
 *
 * <p>May depend on engine-core, the controller modules and cassandra-all (provided).
 */
package dev.sluice.cassandra;
