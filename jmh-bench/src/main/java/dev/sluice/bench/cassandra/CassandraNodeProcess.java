package dev.sluice.bench.cassandra;

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
 * A real Cassandra 5.0.9 node in a child JVM ({@code CassandraDaemon}) on 127.0.0.1 with free ports and the project's
 * own {@code cassandra.yaml} (written here from the scenario's node settings), classpath = the plugin jar + Cassandra's
 * own runtime classpath (cassandra-plugin/cassandra-node/pom.xml). Stopped by the PID it started.
 */
final class CassandraNodeProcess implements AutoCloseable {
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
    private final int jmxPort;
    private final Process process;
    private JMXConnector jmx;

    private CassandraNodeProcess(Path dir, int nativePort, int jmxPort, Process p) {
        this.dir = dir;
        this.nativePort = nativePort;
        this.jmxPort = jmxPort;
        this.process = p;
    }

    /**
     * {@code n} distinct free ports on the loopback address, below the kernel's ephemeral range. All sockets stay open
     * until every port is chosen: choosing them one at a time (open, read the port, close) once handed the same port
     * out twice, and the node's JMX server took the port its native transport then failed to bind (a run on
     * 2026-11-25). Below the ephemeral range, because a port the kernel handed out (port 0) can be taken again as the
     * source port of any outgoing connection before the node binds it (a test node on 2026-11-28 found its storage
     * port 33675 "in use by another process").
     */
    private static int[] freePorts(int n) throws IOException {
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
    private static int ephemeralLow() {
        // Files.readString reads one byte of this file on JDK 17 (/proc/sys reports a size it does not have): stream it
        try (var in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            return Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .strip()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    /** How many times {@link #start} picks new ports when the node reports one of its ports taken. */
    private static final int PORT_ATTEMPTS = 3;

    /**
     * Starts a node in {@code dir} and waits until it accepts CQL connections. When the node exits because a port
     * chosen for it was taken in the meantime (Cassandra's "is in use by another process", JMX's "Port already in
     * use"), it starts again with new ports, up to {@value #PORT_ATTEMPTS} times.
     */
    static CassandraNodeProcess start(
            Path dir,
            List<String> classpath,
            Map<String, String> yamlSettings,
            String heap,
            Map<String, String> sysprops)
            throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            CassandraNodeProcess node = startOnce(dir, classpath, yamlSettings, heap, sysprops);
            if (node != null) {
                return node;
            }
            if (attempt == PORT_ATTEMPTS) {
                throw new IllegalStateException("the Cassandra node found one of its ports taken " + attempt
                        + " times (new free ports each time); see " + dir.resolve("node.log"));
            }
        }
    }

    /** The started node, or null when it exited because one of its ports was taken. */
    private static CassandraNodeProcess startOnce(
            Path dir,
            List<String> classpath,
            Map<String, String> yamlSettings,
            String heap,
            Map<String, String> sysprops)
            throws IOException, InterruptedException {
        int[] ports = freePorts(3);
        int nativePort = ports[0], storagePort = ports[1], jmxPort = ports[2];
        Files.createDirectories(dir);
        Path yaml = dir.resolve("cassandra.yaml");
        StringBuilder y = new StringBuilder(baseYaml(dir, nativePort, storagePort));
        yamlSettings.forEach((k, v) -> y.append(k).append(": ").append(v).append('\n'));
        Files.writeString(yaml, y, StandardCharsets.UTF_8);
        Path logback = dir.resolve("logback.xml");
        Files.writeString(
                logback,
                "<configuration><appender name=\"F\" class=\"ch.qos.logback.core.ConsoleAppender\"><encoder>"
                        + "<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n</pattern></encoder>"
                        + "</appender><root level=\"INFO\"><appender-ref ref=\"F\"/></root></configuration>\n");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JDK17_FLAGS);
        cmd.addAll(List.of(
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:+UseG1GC",
                "-Dcassandra-foreground=yes",
                "-Dcassandra.config=" + yaml.toUri(),
                "-Dcassandra.storagedir=" + dir,
                "-Dcassandra.jmx.local.port=" + jmxPort,
                "-Dcassandra.skip_wait_for_gossip_to_settle=0",
                "-Dlogback.configurationFile=" + logback,
                "-Djava.net.preferIPv4Stack=true"));
        sysprops.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, classpath));
        cmd.add("org.apache.cassandra.service.CassandraDaemon");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("node.log").toFile())
                .start();
        CassandraNodeProcess node = new CassandraNodeProcess(dir, nativePort, jmxPort, p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                String log = Files.readString(dir.resolve("node.log"));
                if (log.contains("is in use by another process") || log.contains("Port already in use")) {
                    return null;
                }
                throw new IllegalStateException(
                        "the Cassandra node exited with " + p.exitValue() + "; see " + dir.resolve("node.log"));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", nativePort), 500);
                return node;
            } catch (IOException notYet) {
                Thread.sleep(250);
            }
        }
        node.close();
        throw new IllegalStateException(
                "the Cassandra node did not open its CQL port in 180 s; see " + dir.resolve("node.log"));
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

    Object invoke(String objectName, String op, Object[] args, String[] signature) throws Exception {
        return jmx().invoke(new ObjectName(objectName), op, args, signature);
    }

    /** Resident set size of the node's process from /proc, or null where /proc is unavailable. */
    Long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return null;
        }
        return null;
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
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static String baseYaml(Path dir, int nativePort, int storagePort) {
        return """
                cluster_name: sluice-bench
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
                key_cache_size: 0MiB
                counter_cache_size: 0MiB
                auto_snapshot: false
                """.replace("@DIR@", dir.toString())
                .replace("@STORAGE@", Integer.toString(storagePort))
                .replace("@NATIVE@", Integer.toString(nativePort));
    }
}
