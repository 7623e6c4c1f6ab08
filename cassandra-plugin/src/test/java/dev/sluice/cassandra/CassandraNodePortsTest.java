package dev.sluice.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The test node's port choice: distinct, free, and out of the kernel's ephemeral range (see CassandraNode#freePorts). */
class CassandraNodePortsTest {
    @Test
    void portsAreDistinctFreeAndBelowTheEphemeralRange() throws Exception {
        int low = CassandraNode.ephemeralLow();
        for (int round = 0; round < 20; round++) {
            int[] ports = CassandraNode.freePorts(3);
            assertEquals(3, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
            for (int port : ports) {
                assertTrue(port >= 10_000 && port < low, port + " outside [10000, " + low + ")");
                try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                    assertEquals(port, s.getLocalPort());
                }
            }
        }
    }

    @Test
    void onlyAPortConflictCountsAsTaken() {
        assertTrue(CassandraNode.portTaken("ConfigurationException: /127.0.0.1:33675 is in use by another process."
                + "  Change listen_address:storage_port in cassandra.yaml"));
        assertTrue(CassandraNode.portTaken("java.rmi.server.ExportException: Port already in use: 40001"));
        assertFalse(CassandraNode.portTaken("Fatal configuration error: unknown property sluice.bogus"));
    }
}
