/**
 * Sensors: the immutable, engine-neutral {@link dev.sluice.core.sensor.LsmSnapshot} that every controller reads
 * (docs/architecture.md §2.1). Pure value types; nothing here touches RocksDB, so the same snapshot can be filled from Cassandra.
 */
package dev.sluice.core.sensor;
