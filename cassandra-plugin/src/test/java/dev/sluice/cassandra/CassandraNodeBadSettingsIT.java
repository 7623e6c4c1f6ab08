package dev.sluice.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node started with a bad node-wide setting ({@code -Dsluice.controls} naming no controller): the node runs, a table
 * asking for SluiceCompactionStrategy is refused with a message naming the property, and other tables are unaffected.
 */
class CassandraNodeBadSettingsIT {
    @Test
    void aBadNodeSettingIsRefusedAtCreateTableNamingTheProperty() throws Exception {
        List<String> cp = CassandraNode.defaultClasspath(List.of());
        Path dir = Path.of("target", "cassandra-it", "bad-settings-" + System.currentTimeMillis());
        try (CassandraNode node = CassandraNode.start(
                        dir.toAbsolutePath(), cp, Map.of("sluice.controls", "admission,nope"), "384m");
                CqlSession cql = CqlSession.builder()
                        .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                        .withLocalDatacenter("datacenter1")
                        .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                                .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                                .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
                                .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, Duration.ofSeconds(30))
                                .withDuration(
                                        DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(60))
                                .build())
                        .build()) {
            cql.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
            assertThatThrownBy(() -> cql.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text) WITH compaction ="
                            + " {'class': 'dev.sluice.cassandra.SluiceCompactionStrategy'}"))
                    .isInstanceOf(QueryValidationException.class)
                    .hasMessageContaining("sluice.controls: 'nope' is not a known controller");
            cql.execute("CREATE TABLE ks.plain (k int PRIMARY KEY, v text)");
            cql.execute("INSERT INTO ks.plain (k, v) VALUES (1, 'one')");
            assertThat(cql.execute("SELECT v FROM ks.plain WHERE k = 1").one().getString("v"))
                    .isEqualTo("one");
            assertThat(cql.getMetadata().getKeyspace("ks").orElseThrow().getTable("t"))
                    .isEmpty();
        }
    }
}
