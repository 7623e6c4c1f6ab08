/**
 * Sluice's public API: {@link dev.sluice.core.Sluice#open(java.nio.file.Path)} gives a {@link dev.sluice.core.SluiceNode}
 * holding named {@link dev.sluice.core.Partition partitions}, each its own RocksDB instance with its own WAL (FlexEngine
 * §4.4). Implementation classes in this package are package-private.
 *
 * <p>Depends on rocksdbjni, Micrometer, Guava, SLF4J, Jackson only. Knows no controller: controllers, admission gates
 * and the priority Env are found through {@link java.util.ServiceLoader} ({@link dev.sluice.core.spi}).
 */
package dev.sluice.core;
