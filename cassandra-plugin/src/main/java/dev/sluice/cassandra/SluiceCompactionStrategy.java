package dev.sluice.cassandra;

import dev.sluice.core.ConfigException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.commitlog.CommitLogPosition;
import org.apache.cassandra.db.commitlog.IntervalSet;
import org.apache.cassandra.db.compaction.AbstractCompactionStrategy;
import org.apache.cassandra.db.compaction.AbstractCompactionTask;
import org.apache.cassandra.db.compaction.CompactionLogger;
import org.apache.cassandra.db.compaction.LeveledCompactionStrategy;
import org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy;
import org.apache.cassandra.db.compaction.SluiceDelegates;
import org.apache.cassandra.db.compaction.UnifiedCompactionStrategy;
import org.apache.cassandra.db.lifecycle.LifecycleNewTracker;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.dht.Range;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.apache.cassandra.index.Index;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;
import org.apache.cassandra.schema.CompactionParams;
import org.apache.cassandra.utils.TimeUUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Cassandra 5.0 compaction strategy that lets the Sluice controllers steer compaction. It delegates every decision
 * about <em>what</em> to compact to one of Cassandra's strategies (UCS by default, STCS or LCS with {@code 'delegate'});
 * the node-wide control plane ({@link NodeControl}) decides <em>when</em>: it may withhold this table's background
 * tasks (a controller paused automatic compactions, or the table reached its compaction-concurrency limit), and it
 * sets node knobs (native-transport admission rate, concurrent compactors, compaction throughput).
 *
 * <pre>{@code
 * ALTER TABLE ks.t WITH compaction = {'class': 'dev.sluice.cassandra.SluiceCompactionStrategy',
 *                                     'delegate': 'ucs', 'scaling_parameters': 'T4'};
 * }</pre>
 *
 * Options other than {@code delegate} are the delegate's own and are validated by it. Controllers and their options
 * are node-wide system properties ({@link NodeSettings}); {@link #validateOptions} checks them too, so a bad setting is
 * refused at {@code CREATE}/{@code ALTER TABLE} with the delegate's or Sluice's message.
 *
 * <p>Cassandra creates two or more instances per table (repaired, unrepaired, pending repair); each wraps its own
 * delegate and they all join the table's one {@link TableState} in the control plane from {@link #startup()} until
 * {@link #shutdown()}.
 */
public class SluiceCompactionStrategy extends AbstractCompactionStrategy {
    private static final Logger log = LoggerFactory.getLogger(SluiceCompactionStrategy.class);

    /** The table option that chooses the delegate strategy. */
    public static final String DELEGATE = "delegate";

    /** The strategies this one can delegate to. */
    enum Delegate {
        UCS(UnifiedCompactionStrategy::new, UnifiedCompactionStrategy::validateOptions),
        STCS(SizeTieredCompactionStrategy::new, SizeTieredCompactionStrategy::validateOptions),
        LCS(LeveledCompactionStrategy::new, LeveledCompactionStrategy::validateOptions);

        final BiFunction<ColumnFamilyStore, Map<String, String>, AbstractCompactionStrategy> create;
        final UnaryOperator<Map<String, String>> validate;

        Delegate(
                BiFunction<ColumnFamilyStore, Map<String, String>, AbstractCompactionStrategy> create,
                UnaryOperator<Map<String, String>> validate) {
            this.create = create;
            this.validate = validate;
        }

        static Delegate parse(String value) {
            if (value == null) {
                return UCS;
            }
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "ucs", "unified", "unifiedcompactionstrategy" -> UCS;
                case "stcs", "sizetiered", "sizetieredcompactionstrategy" -> STCS;
                case "lcs", "leveled", "leveledcompactionstrategy" -> LCS;
                default ->
                    throw new ConfigurationException("SluiceCompactionStrategy: compaction option '" + DELEGATE
                            + "' = '" + value + "' is not a strategy Sluice can delegate to; allowed: ucs"
                            + " (UnifiedCompactionStrategy, the default), stcs (SizeTieredCompactionStrategy), lcs"
                            + " (LeveledCompactionStrategy)");
            };
        }
    }

    private final Delegate kind;
    private final AbstractCompactionStrategy delegate;
    private volatile NodeControl control;

    public SluiceCompactionStrategy(ColumnFamilyStore cfs, Map<String, String> options) {
        super(cfs, options);
        Map<String, String> rest = new HashMap<>(options);
        this.kind = Delegate.parse(rest.remove(DELEGATE));
        this.delegate = kind.create.apply(cfs, rest);
    }

    /**
     * Checks {@code delegate}, the node's {@code sluice.*} settings, and passes the other options to the delegate's
     * {@code validateOptions}; what the delegate does not understand is returned, so Cassandra refuses it with
     * "Properties specified [...] are not understood".
     */
    public static Map<String, String> validateOptions(Map<String, String> options) throws ConfigurationException {
        Map<String, String> rest = new HashMap<>(options);
        Delegate d = Delegate.parse(rest.remove(DELEGATE));
        // Cassandra also calls this with CompactionParams.DEFAULT_THRESHOLDS itself, only to ask whether the strategy
        // takes min/max_threshold, and turns any exception there into an opaque server error; the node settings are
        // checked when it validates the table's own options.
        if (options != CompactionParams.DEFAULT_THRESHOLDS) {
            try {
                NodeControl.get();
            } catch (ConfigException e) {
                throw new ConfigurationException("SluiceCompactionStrategy: node setting " + e.getMessage());
            }
        }
        return d.validate.apply(rest);
    }

    /** The strategy this one delegates to (UCS, STCS or LCS). */
    AbstractCompactionStrategy delegate() {
        return delegate;
    }

    @Override
    public void startup() {
        super.startup();
        delegate.startup();
        try {
            NodeControl c = NodeControl.get();
            c.register(this, cfs);
            control = c;
        } catch (RuntimeException e) {
            log.error(
                    "sluice: {}.{} compacts with {} uncontrolled: the control plane did not start: {}",
                    cfs.getKeyspaceName(),
                    cfs.getTableName(),
                    kind,
                    e.getMessage());
        }
    }

    @Override
    public void shutdown() {
        NodeControl c = control;
        if (c != null) {
            c.unregister(this, cfs);
        }
        delegate.shutdown();
        super.shutdown();
    }

    @Override
    public synchronized void pause() {
        super.pause();
        delegate.pause();
    }

    @Override
    public synchronized void resume() {
        super.resume();
        delegate.resume();
    }

    /** The delegate's next task, unless the control plane withholds this table's background compactions now. */
    @Override
    public AbstractCompactionTask getNextBackgroundTask(long gcBefore) {
        NodeControl c = control;
        if (c != null && !c.mayStartBackgroundTask(cfs)) {
            return null;
        }
        return delegate.getNextBackgroundTask(gcBefore);
    }

    @Override
    public Collection<AbstractCompactionTask> getMaximalTask(long gcBefore, boolean splitOutput) {
        return delegate.getMaximalTask(gcBefore, splitOutput);
    }

    @Override
    public AbstractCompactionTask getUserDefinedTask(Collection<SSTableReader> sstables, long gcBefore) {
        return delegate.getUserDefinedTask(sstables, gcBefore);
    }

    @Override
    public AbstractCompactionTask getCompactionTask(LifecycleTransaction txn, long gcBefore, long maxSSTableBytes) {
        return delegate.getCompactionTask(txn, gcBefore, maxSSTableBytes);
    }

    @Override
    public int getEstimatedRemainingTasks() {
        return delegate.getEstimatedRemainingTasks();
    }

    @Override
    public long getMaxSSTableBytes() {
        return delegate.getMaxSSTableBytes();
    }

    @Override
    public void addSSTable(SSTableReader added) {
        delegate.addSSTable(added);
    }

    @Override
    public void addSSTables(Iterable<SSTableReader> added) {
        delegate.addSSTables(added);
    }

    @Override
    public void removeSSTable(SSTableReader sstable) {
        delegate.removeSSTable(sstable);
    }

    @Override
    public void removeSSTables(Iterable<SSTableReader> removed) {
        delegate.removeSSTables(removed);
    }

    @Override
    public void replaceSSTables(Collection<SSTableReader> removed, Collection<SSTableReader> added) {
        delegate.replaceSSTables(removed, added);
    }

    @Override
    public void metadataChanged(StatsMetadata oldMetadata, SSTableReader sstable) {
        delegate.metadataChanged(oldMetadata, sstable);
    }

    @Override
    protected Set<SSTableReader> getSSTables() {
        return SluiceDelegates.sstables(delegate);
    }

    @Override
    public ScannerList getScanners(Collection<SSTableReader> sstables, Range<Token> range) {
        return delegate.getScanners(sstables, range);
    }

    @Override
    public ScannerList getScanners(Collection<SSTableReader> sstables, Collection<Range<Token>> ranges) {
        return delegate.getScanners(sstables, ranges);
    }

    @Override
    public ScannerList getScanners(Collection<SSTableReader> toCompact) {
        return delegate.getScanners(toCompact);
    }

    @Override
    public Collection<Collection<SSTableReader>> groupSSTablesForAntiCompaction(
            Collection<SSTableReader> sstablesToGroup) {
        return delegate.groupSSTablesForAntiCompaction(sstablesToGroup);
    }

    @Override
    public CompactionLogger.Strategy strategyLogger() {
        return delegate.strategyLogger();
    }

    @Override
    public SSTableMultiWriter createSSTableMultiWriter(
            Descriptor descriptor,
            long keyCount,
            long repairedAt,
            TimeUUID pendingRepair,
            boolean isTransient,
            IntervalSet<CommitLogPosition> commitLogPositions,
            int sstableLevel,
            SerializationHeader header,
            Collection<Index.Group> indexGroups,
            LifecycleNewTracker lifecycleNewTracker) {
        return delegate.createSSTableMultiWriter(
                descriptor,
                keyCount,
                repairedAt,
                pendingRepair,
                isTransient,
                commitLogPositions,
                sstableLevel,
                header,
                indexGroups,
                lifecycleNewTracker);
    }

    @Override
    public boolean supportsEarlyOpen() {
        return delegate.supportsEarlyOpen();
    }

    @Override
    public String toString() {
        return "SluiceCompactionStrategy(" + kind.name().toLowerCase(Locale.ROOT) + ": " + delegate + ")";
    }
}
