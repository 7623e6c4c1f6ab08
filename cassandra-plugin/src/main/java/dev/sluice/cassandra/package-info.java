/**
 * A Cassandra 5.0 compaction strategy ({@link dev.sluice.cassandra.SluiceCompactionStrategy}) driven by the same pure
 * controllers as the RocksDB engine, through Cassandra sensors ({@code CassandraSensors} → {@code LsmSnapshot}) and
 * {@code CassandraActuators} (docs/architecture.md "Engine-neutral split"; README "Cassandra").
 *
 * <p>May depend on the engine-neutral packages of engine-core (control, sensor, config, the admission SPI), the
 * controller packages (ratelimit.admission, compaction) and cassandra-all (provided); never on org.rocksdb (checked by
 * RepositoryRulesTest).
 */
package dev.sluice.cassandra;
