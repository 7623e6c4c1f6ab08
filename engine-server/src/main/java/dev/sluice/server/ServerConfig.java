package dev.sluice.server;

import dev.sluice.core.ConfigException;
import dev.sluice.core.SluiceConfig;
import dev.sluice.core.config.Option;
import dev.sluice.core.config.OptionSet;
import dev.sluice.core.config.OptionValues;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The server's configuration: the node's {@link SluiceConfig} plus the {@code server.*} keys, read from one properties
 * file (the node's format: every other key is the node's, checked by {@link SluiceConfig#fromProperties}).
 *
 * <p>Tenants: {@code server.tenant.<name>.secret = S} declares a tenant that authenticates with {@code AUTH <name> S}
 * and then works on the partition {@code server.tenant.<name>.partition} (default: the partition named like the
 * tenant). When at least one tenant is declared, every connection must {@code AUTH} first ({@code -NOAUTH}); with none,
 * connections use the node's first partition without authentication. Secrets are never logged nor put in messages.
 *
 * @param tenants tenant name → its secret and partition
 */
public record ServerConfig(SluiceConfig node, OptionValues server, Map<String, Tenant> tenants) {

    /** A tenant: the secret it authenticates with and the partition it is mapped to. */
    public record Tenant(String name, String secret, String partition) {
        @Override
        public String toString() {
            return "Tenant[" + name + " -> " + partition + ", secret=****]";
        }
    }

    static final String PREFIX = "server.";
    private static final String TENANT_PREFIX = "tenant.";
    private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public static final Option<String> HOST = Option.of(
            "host",
            "text",
            "127.0.0.1",
            null,
            false,
            s -> s,
            s -> null,
            s -> s,
            "an address of this machine",
            "",
            "Address the RESP2 (Redis protocol) port binds to; 127.0.0.1 keeps it local.");
    public static final Option<Integer> PORT =
            Option.intOption("port", 6380, 0, 65535, "", "RESP2 (Redis protocol) port; 0 = any free port (tests).");
    public static final Option<String> HTTP_HOST = Option.of(
            "http.host",
            "text",
            "127.0.0.1",
            null,
            false,
            s -> s,
            s -> null,
            s -> s,
            "an address of this machine",
            "",
            "Address the HTTP port (/metrics, /status, dashboard) binds to.");
    public static final Option<Integer> HTTP_PORT = Option.intOption(
            "http.port",
            8380,
            0,
            65535,
            "",
            "HTTP port: /metrics (Prometheus), /status (JSON), / (live dashboard); 0 = any free port (tests).");
    public static final Option<Integer> IO_THREADS =
            Option.intOption("io.threads", 2, 1, 64, "threads", "Netty event-loop threads of the RESP2 port.");
    public static final Option<Integer> MAX_BULK_BYTES = Option.intOption(
            "max.bulk.bytes",
            16 * 1024 * 1024 + 1024,
            1024,
            512 * 1024 * 1024,
            "bytes",
            "Largest bulk string of a request; a larger one is a protocol error: -ERR, then that connection is closed."
                    + " Values above limits.max.value.bytes get -ERR from the partition.");
    public static final Option<Integer> MAX_ARRAY_LENGTH = Option.intOption(
            "max.array.length",
            1024 * 1024,
            3,
            64 * 1024 * 1024,
            "elements",
            "Most arguments in one request (MSET k v ... counts 2 per pair); more is a protocol error: -ERR, then that"
                    + " connection is closed. At least 3, so that SET key value fits.");
    public static final Option<Long> MAX_REQUEST_BYTES = Option.longOption(
            "max.request.bytes",
            64L * 1024 * 1024,
            1024,
            Integer.MAX_VALUE,
            "bytes",
            "Most bytes of one request's arguments together (a large MSET); more is a protocol error: -ERR, then that"
                    + " connection is closed. Bounds what one connection makes the server buffer for a request (Redis:"
                    + " client-query-buffer-limit). At least server.max.bulk.bytes.");
    public static final Option<Integer> MAX_INLINE_BYTES = Option.intOption(
            "max.inline.bytes",
            64 * 1024,
            64,
            16 * 1024 * 1024,
            "bytes",
            "Longest inline (telnet-style) request line; longer is a protocol error and closes the connection.");
    public static final Option<Integer> MAX_PENDING = Option.intOption(
            "max.pending.per.connection",
            1024,
            1,
            1_000_000,
            "requests",
            "Pipelined requests of one connection in flight at once; beyond it the server stops reading that"
                    + " connection until replies are written (back-pressure, not an error).");
    public static final Option<Long> MAX_REPLY_BYTES_PER_CONNECTION = Option.longOption(
            "max.reply.bytes.per.connection",
            64L * 1024 * 1024,
            1024 * 1024,
            Long.MAX_VALUE,
            "bytes",
            "Reply bytes one connection may hold in memory: replies computed but not yet written, plus each running"
                    + " request's largest possible reply (limits.max.value.bytes per value a GET or MGET returns)."
                    + " Beyond it the connection's next requests wait to start (back-pressure, not an error); one"
                    + " request always runs.");
    public static final Option<Long> MAX_REPLY_BYTES = Option.longOption(
            "max.reply.bytes",
            0,
            0,
            Long.MAX_VALUE,
            "bytes",
            "Reply bytes all connections together may hold in memory, counted as for"
                    + " server.max.reply.bytes.per.connection; beyond it a connection that already holds or runs a"
                    + " reply waits to start more. Half of it is split evenly among the tenants' partitions as a"
                    + " floor only that partition's tenants use (a throttled tenant cannot take it all); the other half is"
                    + " shared. 0 = a quarter of the JVM's maximum heap.");
    public static final Option<Integer> MAX_CONNECTIONS = Option.intOption(
            "max.connections",
            10_000,
            1,
            1_000_000,
            "connections",
            "Most RESP2 connections open at once (Redis' maxclients); a connection beyond it gets -ERR max number of"
                    + " clients reached and is closed. Capped at half the process's file-descriptor limit, so that"
                    + " idle clients cannot take the descriptors RocksDB needs for its WAL and SST files.");
    public static final Option<Long> AUTH_TIMEOUT_MS = Option.longOption(
            "auth.timeout.ms",
            10_000,
            0,
            3_600_000,
            "ms",
            "On a server with tenants: a connection that has not authenticated this long after it opened is closed,"
                    + " so that idle unauthenticated sockets cannot hold server.max.connections against the tenants"
                    + " (0 = never).");
    public static final Option<Integer> SCAN_MAX_COUNT =
            Option.intOption("scan.max.count", 100_000, 1, 10_000_000, "keys", "Largest COUNT a SCAN may ask for.");
    public static final Option<Long> MAX_REQUEST_BYTES_TOTAL = Option.longOption(
            "max.request.bytes.total",
            0,
            0,
            Long.MAX_VALUE,
            "bytes",
            "Most bytes all connections together may hold of requests not yet received whole (0 = a quarter of the"
                    + " heap). With tenants, half of it is split evenly among their partitions as floors and the other"
                    + " half is shared, as for server.max.reply.bytes, so one tenant cannot take it all. A connection"
                    + " holding more than 64 KiB of an unfinished request that its tenant's floor and the shared half"
                    + " have no room for gets -ERR and is closed; server.max.request.bytes bounds one connection.");
    public static final Option<Long> SCAN_CURSOR_BYTES = Option.longOption(
            "scan.cursor.bytes",
            16L << 20,
            64L << 10,
            1L << 30,
            "bytes",
            "Memory for SCAN cursors per partition (each holds the last key it returned, plus "
                    + ScanCursors.ENTRY_OVERHEAD
                    + " bytes); beyond it the least recently used cursor is evicted and answers"
                    + " 'invalid cursor'. Cursors are valid on any connection of their partition.");
    public static final Option<Long> SHUTDOWN_TIMEOUT_MS = Option.longOption(
            "shutdown.timeout.ms",
            30_000,
            0,
            3_600_000,
            "ms",
            "On shutdown (SIGTERM): how long admitted requests may take to finish before connections are closed;"
                    + " requests still queued then fail (at least 1 s later), and those already inside RocksDB finish"
                    + " before the node closes.");
    public static final Option<Integer> HISTORY_SECONDS = Option.intOption(
            "history.seconds",
            600,
            10,
            86_400,
            "s",
            "Per-second points /status keeps for the dashboard (throughput, p99, watermark, L0 files, I/O).");

    /** Every fixed {@code server.*} option (tenant keys are {@code server.tenant.<name>.secret|partition}). */
    public static final OptionSet OPTIONS = OptionSet.of(
            HOST,
            PORT,
            HTTP_HOST,
            HTTP_PORT,
            IO_THREADS,
            MAX_BULK_BYTES,
            MAX_ARRAY_LENGTH,
            MAX_REQUEST_BYTES,
            MAX_INLINE_BYTES,
            MAX_PENDING,
            MAX_REPLY_BYTES_PER_CONNECTION,
            MAX_REPLY_BYTES,
            MAX_CONNECTIONS,
            AUTH_TIMEOUT_MS,
            MAX_REQUEST_BYTES_TOTAL,
            SCAN_MAX_COUNT,
            SCAN_CURSOR_BYTES,
            SHUTDOWN_TIMEOUT_MS,
            HISTORY_SECONDS);

    public ServerConfig {
        tenants = Map.copyOf(tenants);
        for (Tenant t : tenants.values()) {
            if (!node.partitions().contains(t.partition())) {
                throw new ConfigException(PREFIX + TENANT_PREFIX + t.name() + ".partition = " + t.partition()
                        + " is not a partition of the node; partitions = " + node.partitions());
            }
        }
        long request = server.get(MAX_REQUEST_BYTES);
        int bulk = server.get(MAX_BULK_BYTES);
        if (request < bulk) {
            throw new ConfigException(PREFIX + MAX_REQUEST_BYTES.name() + " = " + request + " is below " + PREFIX
                    + MAX_BULK_BYTES.name() + " = " + bulk + ": a request holding one bulk string of the allowed size"
                    + " would be refused; raise " + PREFIX + MAX_REQUEST_BYTES.name() + " to at least " + bulk);
        }
    }

    /** A server over {@code node} with default {@code server.*} options and no tenants (no AUTH). */
    public static ServerConfig of(SluiceConfig node) {
        return new ServerConfig(node, OPTIONS.defaults(), Map.of());
    }

    public <T> T get(Option<T> option) {
        return server.get(option);
    }

    public boolean authRequired() {
        return !tenants.isEmpty();
    }

    /** The partitions the tenants are mapped to, each once (two tenants may share one); empty without tenants. */
    public java.util.Set<String> tenantPartitions() {
        java.util.Set<String> p = new java.util.TreeSet<>();
        for (Tenant t : tenants.values()) {
            p.add(t.partition());
        }
        return p;
    }

    /** Reads a properties file: {@code server.*} keys here, every other key is the node's. */
    public static ServerConfig fromProperties(Path file) {
        Properties p = SluiceConfig.readPropertiesFile(file);
        try {
            return fromProperties(p, file.toAbsolutePath().getParent());
        } catch (ConfigException e) {
            throw new ConfigException(file + ": " + e.getMessage());
        }
    }

    /** Builds from key/value pairs; relative paths of the node's keys resolve against {@code baseDir}. */
    public static ServerConfig fromProperties(Properties p, Path baseDir) {
        Properties nodeProps = new Properties();
        Map<String, String> serverKeys = new TreeMap<>();
        Map<String, Map<String, String>> tenantKeys = new TreeMap<>();
        List<String> badTenantKeys = new ArrayList<>();
        for (String key : p.stringPropertyNames()) {
            String v = p.getProperty(key).trim();
            if (!key.startsWith(PREFIX)) {
                nodeProps.setProperty(key, v);
                continue;
            }
            String k = key.substring(PREFIX.length());
            if (k.startsWith(TENANT_PREFIX)) {
                String rest = k.substring(TENANT_PREFIX.length());
                int dot = rest.lastIndexOf('.');
                String name = dot < 0 ? "" : rest.substring(0, dot);
                String field = dot < 0 ? rest : rest.substring(dot + 1);
                if (!TENANT_NAME.matcher(name).matches() || !(field.equals("secret") || field.equals("partition"))) {
                    badTenantKeys.add(key);
                } else {
                    tenantKeys.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(field, v);
                }
            } else {
                serverKeys.put(k, v);
            }
        }
        if (!badTenantKeys.isEmpty()) {
            throw new ConfigException(
                    "unknown tenant key(s) " + badTenantKeys.stream().sorted().toList()
                            + "; a tenant is declared with server.tenant.<name>.secret and optionally"
                            + " server.tenant.<name>.partition, <name> of [A-Za-z0-9_-]{1,64}");
        }
        OptionValues server = OPTIONS.parse(PREFIX, serverKeys);
        String poolWarning = isolateTenantsOnThePool(nodeProps, tenantKeys);
        if (poolWarning != null) {
            org.slf4j.LoggerFactory.getLogger(ServerConfig.class).warn(poolWarning);
        }
        SluiceConfig node = SluiceConfig.fromProperties(nodeProps, baseDir);
        Map<String, Tenant> tenants = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> e : tenantKeys.entrySet()) {
            String name = e.getKey();
            String secret = e.getValue().get("secret");
            if (secret == null || secret.isEmpty()) {
                throw new ConfigException(PREFIX + TENANT_PREFIX + name + ".secret is missing or empty: every tenant"
                        + " needs a secret");
            }
            String partition = e.getValue().getOrDefault("partition", name);
            if (partition.isEmpty()) {
                throw new ConfigException(PREFIX + TENANT_PREFIX + name + ".partition is empty");
            }
            tenants.put(name, new Tenant(name, secret, partition));
        }
        return new ServerConfig(node, server, tenants);
    }

    /**
     * With tenants on two or more partitions and {@code async.partition.threads} not set, sets it so that one partition's
     * reads and writes together hold fewer than all of {@code async.threads} ({@code max(1, (async.threads − 1) / 2)}
     * each: 1 of the default 4). Without a limit every tenant's requests share the pool's one FIFO queue: a tenant
     * pipelining SCANs of 100,000 keys on 8 connections cut another tenant's GETs from 200/s to 9/s, p99 1.35 s (a probe
     * of the server's tenant isolation, 2026-11-28). A value set in the file is kept, 0 included.
     *
     * @return a warning when the split cannot leave other tenants a thread ({@code async.threads} ≤ 2: one partition's
     *     read and write slot are then the whole pool; a probe, 2026-11-29, measured another tenant's GET p99 at 1.6 s
     *     against 0.3 s with the default 4), else null
     */
    static String isolateTenantsOnThePool(Properties nodeProps, Map<String, Map<String, String>> tenantKeys) {
        if (nodeProps.containsKey(SluiceConfig.ASYNC_PARTITION_THREADS)) {
            return null;
        }
        java.util.Set<String> partitions = new java.util.HashSet<>();
        for (Map.Entry<String, Map<String, String>> e : tenantKeys.entrySet()) {
            partitions.add(e.getValue().getOrDefault("partition", e.getKey()));
        }
        if (partitions.size() < 2) {
            return null;
        }
        int threads = SluiceConfig.ASYNC_THREADS_OPTION.defaultValue();
        String given = nodeProps.getProperty(SluiceConfig.ASYNC_THREADS);
        if (given != null) {
            threads = SluiceConfig.ASYNC_THREADS_OPTION.parse(given.trim()); // a bad value is named here as anywhere
        }
        int each = Math.max(1, (threads - 1) / 2);
        nodeProps.setProperty(SluiceConfig.ASYNC_PARTITION_THREADS, Integer.toString(each));
        return 2 * each < threads
                ? null
                : "async.threads = " + threads + " leaves no thread for other tenants: one partition's reads and writes"
                        + " (async.partition.threads = " + each + " each) can hold the whole pool, so a tenant's slow"
                        + " requests delay the others'; set async.threads to 3 or more (4 is the default)";
    }

    @Override
    public String toString() {
        return "ServerConfig[node=" + node + ", server=" + server + ", tenants=" + tenants.values() + "]";
    }
}
