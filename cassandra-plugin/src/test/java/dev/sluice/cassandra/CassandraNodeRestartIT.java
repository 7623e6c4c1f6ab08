package dev.sluice.cassandra;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nothing stored is lost across restarts of a node whose tables use the strategy: rows written and flushed under one
 * setting are all read back after a restart with a bad {@code sluice.*} setting (the strategy then compacts
 * uncontrolled and logs why) and after a restart with a good one.
 */
class CassandraNodeRestartIT {
    static CqlSession session(CassandraNode node) {
        return CqlSession.builder()
                .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                .withLocalDatacenter("datacenter1")
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, Duration.ofSeconds(30))
                        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .build())
                .build();
    }

    static long count(CqlSession cql) {
        long n = 0;
        for (var r : cql.execute("SELECT k, v FROM ks.t")) {
            assertThat(r.getString("v")).isEqualTo("v" + r.getInt("k"));
            n++;
        }
        return n;
    }

    @Test
    void rowsSurviveRestartsWithABadAndAGoodSetting() throws Exception {
        List<String> cp = CassandraNode.defaultClasspath(List.of());
        Path dir = Path.of("target", "cassandra-it", "restart-" + System.currentTimeMillis())
                .toAbsolutePath();
        try (CassandraNode node = CassandraNode.start(dir, cp, Map.of(), "384m");
                CqlSession cql = session(node)) {
            cql.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
            cql.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text) WITH compaction ="
                    + " {'class': 'dev.sluice.cassandra.SluiceCompactionStrategy'}");
            var ps = cql.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)");
            for (int i = 0; i < 1000; i++) {
                cql.execute(ps.bind(i, "v" + i));
            }
            node.flush("ks", "t");
            assertThat(count(cql)).isEqualTo(1000);
        }
        try (CassandraNode node = CassandraNode.start(dir, cp, Map.of("sluice.controls", "nope"), "384m");
                CqlSession cql = session(node)) {
            assertThat(count(cql)).isEqualTo(1000);
            assertThat(node.log()).contains("compacts with UCS uncontrolled");
        }
        try (CassandraNode node = CassandraNode.start(dir, cp, Map.of(), "384m");
                CqlSession cql = session(node)) {
            assertThat(count(cql)).isEqualTo(1000);
            assertThat(node.log()).contains("table ks.t joins the control plane");
        }
    }
}
