package dev.sluice.cassandra;

import dev.sluice.core.control.ControlEvent;
import dev.sluice.core.control.ControlEventLog;
import java.util.List;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.db.marshal.UTF8Type;
import org.apache.cassandra.db.virtual.AbstractVirtualTable;
import org.apache.cassandra.db.virtual.SimpleDataSet;
import org.apache.cassandra.dht.LocalPartitioner;
import org.apache.cassandra.schema.TableMetadata;

/**
 * The control events as a CQL virtual table, {@code SELECT * FROM sluice.control_events}: the events the plane still
 * keeps ({@code sluice.events.capacity}), one row each, keyed by their sequence number since the plane started.
 */
final class ControlEventsTable extends AbstractVirtualTable {
    static final String KEYSPACE = "sluice";

    private final ControlEventLog events;

    ControlEventsTable(ControlEventLog events) {
        super(TableMetadata.builder(KEYSPACE, "control_events")
                .kind(TableMetadata.Kind.VIRTUAL)
                .comment("Sluice control decisions (newest kept), see README Cassandra")
                .partitioner(new LocalPartitioner(LongType.instance))
                .addPartitionKeyColumn("seq", LongType.instance)
                .addRegularColumn("time", UTF8Type.instance)
                .addRegularColumn("controller", UTF8Type.instance)
                .addRegularColumn("table_name", UTF8Type.instance)
                .addRegularColumn("knob", UTF8Type.instance)
                .addRegularColumn("action", UTF8Type.instance)
                .addRegularColumn("outcome", UTF8Type.instance)
                .addRegularColumn("reason", UTF8Type.instance)
                .addRegularColumn("detail", UTF8Type.instance)
                .build());
        this.events = events;
    }

    @Override
    public DataSet data() {
        SimpleDataSet result = new SimpleDataSet(metadata());
        List<ControlEvent> recent;
        long total;
        synchronized (events) {
            recent = events.recent();
            total = events.total();
        }
        long seq = total - recent.size();
        for (ControlEvent e : recent) {
            result.row(seq++)
                    .column("time", e.time().toString())
                    .column("controller", e.controller())
                    .column("table_name", e.partition())
                    .column("knob", e.knob())
                    .column("action", e.action())
                    .column("outcome", e.outcome().name())
                    .column("reason", e.reason())
                    .column("detail", e.detail());
        }
        return result;
    }
}
