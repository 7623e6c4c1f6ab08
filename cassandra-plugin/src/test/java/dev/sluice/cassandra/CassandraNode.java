package dev.sluice.cassandra;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A real Cassandra 5.0.9 node in a child JVM (main class {@code CassandraDaemon}) on 127.0.0.1 with free ports, the
 * project's own minimal {@code cassandra.yaml}, and the classpath a user gets: the plugin jar plus Cassandra's own
 * runtime classpath (resolved by cassandra-node/pom.xml, with Cassandra's versions) — no rocksdbjni. Stopped by the
 * PID it started.
 */
final class CassandraNode implements AutoCloseable {
    static final List<String> JDK17_FLAGS = List.of(
            "--add-exports",
            "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports",
            "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports",
            "java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-opens",
            "java.base/java.io=ALL-UNNAMED",
            "--add-opens",
            "java.base/sun.nio.ch=ALL-UNNAMED");

    final Path dir;
    final int nativePort;
    final int storagePort;
    final int jmxPort;
    final List<String> classpath;
    private final Process process;
    private JMXConnector jmx;

    private CassandraNode(Path dir, int nativePort, int storagePort, int jmxPort, List<String> cp, Process p) {
        this.dir = dir;
        this.nativePort = nativePort;
        this.storagePort = storagePort;
        this.jmxPort = jmxPort;
        this.classpath = cp;
        this.process = p;
    }

    /** The plugin jar and the node's classpath, from the system properties the build sets. */
    static List<String> defaultClasspath(List<String> extra) throws IOException {
        String jar = System.getProperty("sluice.cassandra.jar", "target/sluice-cassandra.jar");
        String nodeCp = Files.readString(Path.of(
                        System.getProperty("sluice.cassandra.node.classpath", "target/cassandra-node.classpath")))
                .strip();
        List<String> cp = new ArrayList<>();
        cp.add(Path.of(jar).toAbsolutePath().toString());
        cp.addAll(extra);
        for (String e : nodeCp.split(File.pathSeparator)) {
            if (!e.isBlank()) {
                cp.add(e);
            }
        }
        return cp;
    }

    /**
     * {@code n} distinct free ports on the loopback address, below the kernel's ephemeral range. All sockets stay open
     * until every port is chosen: choosing them one at a time (open, read the port, close) once handed the same port
     * out twice, and the node's JMX server took the port its native transport then failed to bind (a run on
     * 2026-11-25). Below the ephemeral range, because a port the kernel handed out (port 0) can be taken again as the
     * source port of any outgoing connection before the node binds it: a verify on 2026-11-28 failed with the node's
     * storage port 33675 "in use by another process".
     */
    static int[] freePorts(int n) throws IOException {
        List<ServerSocket> open = new ArrayList<>();
        try {
            int[] ports = new int[n];
            int below = ephemeralLow();
            for (int tries = 0; open.size() < n && tries < 1000; tries++) {
                int port = 10_000 + ThreadLocalRandom.current().nextInt(Math.max(1, below - 10_000));
                try {
                    open.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                } catch (IOException taken) {
                    // try another
                }
            }
            while (open.size() < n) { // no room below the ephemeral range: any free port
                open.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            for (int i = 0; i < n; i++) {
                ports[i] = open.get(i).getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : open) {
                s.close();
            }
        }
    }

    /** The low end of Linux's ephemeral port range ({@code ip_local_port_range}); 32768 where it cannot be read. */
    static int ephemeralLow() {
        // Files.readString reads one byte of this file on JDK 17 (/proc/sys reports a size it does not have): stream it
        try (var in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            return Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .strip()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    /** What the node prints when a port it was given is taken after all (Cassandra's bind error, JMX's). */
    static boolean portTaken(String log) {
        return log.contains("is in use by another process") || log.contains("Port already in use");
    }

    /** How many times {@link #start} picks new ports when the node reports one of its ports taken. */
    static final int PORT_ATTEMPTS = 3;

    /**
     * Starts a node in {@code dir} and waits until it accepts CQL connections.
     *
     * @param sluiceProperties {@code sluice.*} system properties for the plugin's control plane
     */
    static CassandraNode start(Path dir, List<String> classpath, Map<String, String> sluiceProperties, String heap)
            throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(dir, classpath, sluiceProperties, heap);
            } catch (PortTakenException e) {
                if (attempt == PORT_ATTEMPTS) {
                    throw new IllegalStateException("the Cassandra node found one of its ports taken " + attempt
                            + " times (new free ports" + " each time):\n" + e.getMessage());
                }
            }
        }
    }

    /** The node exited because a port chosen for it was taken in the meantime. */
    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    private static CassandraNode startOnce(
            Path dir, List<String> classpath, Map<String, String> sluiceProperties, String heap)
            throws IOException, InterruptedException {
        int[] ports = freePorts(3);
        int nativePort = ports[0], storagePort = ports[1], jmxPort = ports[2];
        Files.createDirectories(dir);
        Path yaml = dir.resolve("cassandra.yaml");
        Files.writeString(yaml, yaml(dir, nativePort, storagePort), StandardCharsets.UTF_8);
        Path logback = dir.resolve("logback.xml");
        Files.writeString(logback, LOGBACK);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JDK17_FLAGS);
        cmd.addAll(List.of(
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:TieredStopAtLevel=1",
                "-Dcassandra-foreground=yes",
                "-Dcassandra.config=" + yaml.toUri(),
                "-Dcassandra.storagedir=" + dir,
                "-Dcassandra.jmx.local.port=" + jmxPort,
                "-Dcassandra.skip_wait_for_gossip_to_settle=0",
                "-Dcassandra.memtable.row_overhead_size=181",
                "-Dcassandra.unsafesystem=true",
                "-Dlogback.configurationFile=" + logback,
                "-Djava.net.preferIPv4Stack=true"));
        for (Map.Entry<String, String> e : sluiceProperties.entrySet()) {
            cmd.add("-D" + e.getKey() + "=" + e.getValue());
        }
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, classpath));
        cmd.add("org.apache.cassandra.service.CassandraDaemon");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        CassandraNode node = new CassandraNode(dir, nativePort, storagePort, jmxPort, classpath, p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                String why = "the Cassandra node exited with " + p.exitValue() + ":\n" + node.tail(60);
                if (portTaken(node.log())) {
                    throw new PortTakenException(why);
                }
                throw new IllegalStateException(why);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", nativePort), 500);
                return node;
            } catch (IOException notYet) {
                Thread.sleep(250);
            }
        }
        node.close();
        throw new IllegalStateException("the Cassandra node did not open its CQL port in 180 s:\n" + node.tail(60));
    }

    /** The last lines of the node's stdout, for failure messages. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(dir.resolve("stdout.log"));
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    String log() throws IOException {
        return Files.readString(dir.resolve("stdout.log"));
    }

    long pid() {
        return process.pid();
    }

    synchronized MBeanServerConnection jmx() throws IOException {
        if (jmx == null) {
            jmx = JMXConnectorFactory.connect(
                    new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
        }
        return jmx.getMBeanServerConnection();
    }

    Object attribute(String objectName, String attribute) throws Exception {
        return jmx().getAttribute(new ObjectName(objectName), attribute);
    }

    void flush(String keyspace, String... tables) throws Exception {
        jmx().invoke(
                        new ObjectName("org.apache.cassandra.db:type=StorageService"),
                        "forceKeyspaceFlush",
                        new Object[] {keyspace, tables},
                        new String[] {String.class.getName(), String[].class.getName()});
    }

    int liveSSTables(String keyspace, String table) throws Exception {
        Object v = attribute(
                "org.apache.cassandra.metrics:type=Table,keyspace=" + keyspace + ",scope=" + table
                        + ",name=LiveSSTableCount",
                "Value");
        return ((Number) v).intValue();
    }

    @Override
    public void close() {
        try {
            if (jmx != null) {
                jmx.close();
            }
        } catch (IOException ignored) {
            // the node goes away anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    static String yaml(Path dir, int nativePort, int storagePort) {
        return """
                cluster_name: sluice
                num_tokens: 1
                partitioner: org.apache.cassandra.dht.Murmur3Partitioner
                storage_compatibility_mode: NONE
                data_file_directories:
                  - @DIR@/data
                commitlog_directory: @DIR@/commitlog
                saved_caches_directory: @DIR@/saved_caches
                hints_directory: @DIR@/hints
                cdc_raw_directory: @DIR@/cdc_raw
                commitlog_sync: periodic
                commitlog_sync_period: 10000ms
                seed_provider:
                  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
                    parameters:
                      - seeds: "127.0.0.1:@STORAGE@"
                listen_address: 127.0.0.1
                rpc_address: 127.0.0.1
                storage_port: @STORAGE@
                native_transport_port: @NATIVE@
                start_native_transport: true
                endpoint_snitch: SimpleSnitch
                memtable_heap_space: 32MiB
                concurrent_compactors: 1
                compaction_throughput: 64MiB/s
                key_cache_size: 0MiB
                counter_cache_size: 0MiB
                auto_snapshot: false
                """.replace("@DIR@", dir.toString())
                .replace("@STORAGE@", Integer.toString(storagePort))
                .replace("@NATIVE@", Integer.toString(nativePort));
    }

    static final String LOGBACK = """
            <configuration>
              <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n</pattern></encoder>
              </appender>
              <root level="INFO"><appender-ref ref="STDOUT"/></root>
            </configuration>
            """;
}
