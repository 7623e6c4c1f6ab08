package dev.sluice.server;

import dev.sluice.core.Batch;
import dev.sluice.core.KeyRange;
import dev.sluice.core.OverloadedException;
import dev.sluice.core.Partition;
import dev.sluice.core.QuotaExceededException;
import dev.sluice.core.SluiceException;
import dev.sluice.core.SluiceNode;
import dev.sluice.core.WriteMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RESP2 commands. Every data command goes through the partition's async API ({@code getAsync}, {@code putAsync},
 * {@code multiGetAsync}, {@code writeAsync}, {@code scanKeysAsync}), so an event-loop thread never waits for admission or
 * RocksDB; the others answer at once. Errors are the ones Redis clients expect: {@code -ERR unknown command}, {@code
 * -ERR wrong number of arguments}, {@code -NOAUTH}, {@code -WRONGPASS}, and for the engine's refusals {@code -BUSY}
 * (admission refused: {@link OverloadedException}) and {@code -QUOTA} ({@link QuotaExceededException}). Thread-safe.
 */
final class Commands {
    private static final Logger log = LoggerFactory.getLogger(Commands.class);

    /** A command: name, Redis arity (n = exactly n words with the name, -n = at least n), flags, first/last key, step. */
    record Spec(
            String name,
            int arity,
            List<String> flags,
            int firstKey,
            int lastKey,
            int step,
            boolean beforeAuth,
            KeyOrder.Kind access,
            BiFunction<Call, byte[][], CompletableFuture<Reply>> run) {
        /** The keys this request reads or writes, for {@link KeyOrder}. */
        KeyOrder.Access access(byte[][] args) {
            if (access == KeyOrder.Kind.NONE || access == KeyOrder.Kind.SCAN) {
                return access == KeyOrder.Kind.NONE ? KeyOrder.Access.NONE : new KeyOrder.Access(access, List.of());
            }
            int last = lastKey < 0 ? args.length + lastKey : lastKey;
            List<byte[]> keys = new ArrayList<>();
            for (int i = firstKey; i <= last && i < args.length; i += step) {
                keys.add(args[i]);
            }
            return new KeyOrder.Access(access, keys);
        }
    }

    /** One request's context, fixed when it is received: its connection and the partition it works on then. */
    record Call(Session session, Partition partition) {}

    private final SluiceNode node;
    private final ServerConfig config;
    private final ServerStats stats;
    private final StatusSampler status;
    private final Map<String, Spec> specs = new LinkedHashMap<>();
    private final ScanCursors cursors;
    /**
     * Failed AUTHs are logged at most once per {@link RateLimitedLog#INTERVAL_NANOS}, with the count of those left out:
     * a probe (2026-11-29) pipelined 100,000 wrong AUTHs on one connection in 1.7 s and grew the log by 12 MB. The
     * counter {@code sluice.server.auth.failures} counts them all.
     */
    private final RateLimitedLog authFailureLog = new RateLimitedLog(log);

    Commands(SluiceNode node, ServerConfig config, ServerStats stats, StatusSampler status) {
        this.node = node;
        this.config = config;
        this.cursors = new ScanCursors(config.get(ServerConfig.SCAN_CURSOR_BYTES));
        this.stats = stats;
        this.status = status;
        List<String> r = List.of("readonly", "fast");
        List<String> w = List.of("write", "denyoom");
        add("GET", 2, r, 1, 1, 1, false, this::get);
        add("SET", -3, w, 1, 1, 1, false, this::set);
        add("DEL", -2, List.of("write"), 1, -1, 1, false, this::del);
        add("EXISTS", -2, r, 1, -1, 1, false, this::exists);
        add("MGET", -2, r, 1, -1, 1, false, this::mget);
        add("MSET", -3, w, 1, -1, 2, false, this::mset);
        add("SCAN", -2, List.of("readonly"), 0, 0, 0, false, this::scan);
        add("PING", -1, List.of("fast"), 0, 0, 0, false, this::ping);
        add("ECHO", 2, List.of("fast"), 0, 0, 0, false, (s, a) -> done(new Reply.Bulk(a[1])));
        add("INFO", -1, List.of("loading", "stale"), 0, 0, 0, false, this::info);
        add("AUTH", -2, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, true, this::auth);
        add("QUIT", -1, List.of("fast"), 0, 0, 0, true, (s, a) -> done(new Reply.ThenClose(Reply.OK)));
        add("CLIENT", -2, List.of("admin", "noscript"), 0, 0, 0, false, this::client);
        add("COMMAND", -1, List.of("loading", "stale"), 0, 0, 0, false, this::command);
        add("SELECT", 2, List.of("loading", "fast"), 0, 0, 0, false, this::select);
        add("HELLO", -1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, true, this::hello);
        add("CONFIG", -2, List.of("admin", "noscript"), 0, 0, 0, false, this::configCmd);
        add("SLUICE", 2, List.of("admin", "noscript"), 0, 0, 0, false, this::sluiceCmd);
    }

    /** A reply that holds no value (OK, an integer, an error, PONG): what {@link #replyEstimate} gives it. */
    static final long SMALL_REPLY = 64;

    /**
     * The most bytes a request's reply can hold, known before it runs: the largest value a partition accepts for each
     * value it may return (GET, MGET), the largest key for each key a SCAN may return (its COUNT, default 10), the
     * argument for ECHO, 64 KiB for the introspection commands, {@link #SMALL_REPLY} for the rest. The connection's reply
     * budget counts a running request with this ({@link RespHandler}): a worst case, since the reply's real size is known
     * only once it is read.
     */
    long replyEstimate(Spec spec, byte[][] args) {
        if (spec == null) {
            return SMALL_REPLY;
        }
        long value = node.config().maxValueBytes();
        return switch (spec.name()) {
            case "GET" -> value;
            case "MGET" -> (args.length - 1) * value;
            case "SCAN" -> scanCount(args) * (node.config().maxKeyBytes() + 16L) + SMALL_REPLY;
            case "ECHO" -> args.length > 1 ? args[1].length + 16L : SMALL_REPLY;
            case "INFO", "COMMAND", "CONFIG", "CLIENT" -> 64 * 1024;
            default -> SMALL_REPLY;
        };
    }

    /** The COUNT a SCAN asks for (10 when absent), capped at server.scan.max.count; the command checks it itself. */
    private long scanCount(byte[][] args) {
        long max = config.get(ServerConfig.SCAN_MAX_COUNT);
        for (int i = 2; i + 1 < args.length; i++) {
            if (new String(args[i], StandardCharsets.US_ASCII).equalsIgnoreCase("COUNT")) {
                try {
                    long n = Long.parseLong(new String(args[i + 1], StandardCharsets.US_ASCII));
                    return Math.max(1, Math.min(n, max));
                } catch (NumberFormatException e) {
                    return max; // refused when it runs; counted at the most until then
                }
            }
        }
        return 10;
    }

    private void add(
            String name,
            int arity,
            List<String> flags,
            int first,
            int last,
            int step,
            boolean beforeAuth,
            BiFunction<Call, byte[][], CompletableFuture<Reply>> run) {
        KeyOrder.Kind access = name.equals("SCAN")
                ? KeyOrder.Kind.SCAN
                : first == 0 ? KeyOrder.Kind.NONE : flags.contains("write") ? KeyOrder.Kind.WRITE : KeyOrder.Kind.READ;
        specs.put(name, new Spec(name, arity, flags, first, last, step, beforeAuth, access, run));
    }

    Spec spec(byte[] name) {
        return specs.get(word(name));
    }

    /**
     * Runs one request. Never throws and never blocks: the future completes with the reply (errors included) on the
     * calling thread or on the node's async pool. The command itself starts only once {@code after} (if not null)
     * completes, however it completes; the checks (unknown command, NOAUTH, arity) and the choice of partition happen
     * now, on the caller's thread.
     */
    CompletableFuture<Reply> execute(Session s, byte[][] args, Spec spec, CompletableFuture<?> after) {
        if (spec == null) {
            return done(unknownCommand(args));
        }
        if (config.authRequired() && s.tenant == null && !spec.beforeAuth()) {
            return done(Reply.error("NOAUTH Authentication required."));
        }
        if (spec.arity() > 0 ? args.length != spec.arity() : args.length < -spec.arity()) {
            return done(wrongArity(spec.name()));
        }
        Call call = new Call(s, s.partition);
        if (after == null) {
            return run(spec, call, args);
        }
        return after.handle((v, e) -> null).thenCompose(x -> run(spec, call, args));
    }

    private CompletableFuture<Reply> run(Spec spec, Call call, byte[][] args) {
        String partition = call.partition() == null ? null : call.partition().name();
        try {
            return spec.run().apply(call, args).exceptionally(t -> toError(t, partition));
        } catch (RuntimeException e) {
            return done(toError(e, partition));
        }
    }

    // ---- data commands (async API only) ----

    private CompletableFuture<Reply> get(Call c, byte[][] a) {
        return c.partition().getAsync(a[1]).thenApply(Reply.Bulk::new);
    }

    private CompletableFuture<Reply> set(Call c, byte[][] a) {
        if (a.length > 3) {
            String opt = word(a[3]);
            String why = switch (opt) {
                case "EX", "PX", "EXAT", "PXAT", "KEEPTTL" ->
                    "SET " + opt + " is not supported: Sluice keys do not expire";
                case "NX", "XX", "GET" ->
                    "SET " + opt + " is not supported (no conditional or read-modify-write SET);"
                            + " use plain SET key value";
                default -> "syntax error";
            };
            return done(Reply.error("ERR " + why));
        }
        return c.partition().putAsync(a[1], a[2], WriteMode.DEFAULT).thenApply(v -> Reply.OK);
    }

    /** DEL: counts the keys that existed (read, then one atomic batch of deletes; not atomic with the read). */
    private CompletableFuture<Reply> del(Call c, byte[][] a) {
        List<byte[]> keys = Arrays.asList(a).subList(1, a.length);
        Partition p = c.partition();
        return p.multiGetAsync(keys).thenCompose(values -> {
            Batch b = new Batch();
            long n = 0;
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int i = 0; i < keys.size(); i++) {
                if (values.get(i) != null && seen.add(new String(keys.get(i), StandardCharsets.ISO_8859_1))) {
                    n++;
                    b.delete(keys.get(i));
                }
            }
            long removed = n;
            return b.isEmpty()
                    ? CompletableFuture.completedFuture((Reply) new Reply.Int(0))
                    : p.writeAsync(b, WriteMode.DEFAULT).thenApply(v -> (Reply) new Reply.Int(removed));
        });
    }

    /** EXISTS: a key given twice counts twice, as in Redis. */
    private CompletableFuture<Reply> exists(Call c, byte[][] a) {
        return c.partition()
                .multiGetAsync(Arrays.asList(a).subList(1, a.length))
                .thenApply(values ->
                        new Reply.Int(values.stream().filter(v -> v != null).count()));
    }

    private CompletableFuture<Reply> mget(Call c, byte[][] a) {
        return c.partition()
                .multiGetAsync(Arrays.asList(a).subList(1, a.length))
                .thenApply(values -> {
                    List<Reply> out = new ArrayList<>(values.size());
                    for (byte[] v : values) {
                        out.add(new Reply.Bulk(v));
                    }
                    return new Reply.Array(out);
                });
    }

    /** MSET: one atomic batch. */
    private CompletableFuture<Reply> mset(Call c, byte[][] a) {
        if ((a.length - 1) % 2 != 0) {
            return done(wrongArity("MSET"));
        }
        Batch b = new Batch();
        for (int i = 1; i < a.length; i += 2) {
            b.put(a[i], a[i + 1]);
        }
        return c.partition().writeAsync(b, WriteMode.DEFAULT).thenApply(v -> Reply.OK);
    }

    /**
     * SCAN cursor [MATCH pattern] [COUNT n] [TYPE string]: walks the partition in key order, COUNT keys per call (10 by
     * default); MATCH filters the keys read, so a call may return fewer. Cursors (0 = start / done) are the server's,
     * per partition ({@link ScanCursors}): valid on any connection of the partition, resumable, the least recently used
     * evicted beyond {@code server.scan.cursor.bytes}.
     */
    private CompletableFuture<Reply> scan(Call c, byte[][] a) {
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(new String(a[1], StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return done(Reply.error("ERR invalid cursor"));
        }
        byte[] pattern = null;
        int count = 10;
        boolean typeMatches = true;
        for (int i = 2; i < a.length; i += 2) {
            if (i + 1 >= a.length) {
                return done(Reply.error("ERR syntax error"));
            }
            switch (word(a[i])) {
                case "MATCH" -> pattern = a[i + 1];
                case "COUNT" -> {
                    long n;
                    try {
                        n = Long.parseLong(new String(a[i + 1], StandardCharsets.US_ASCII));
                    } catch (NumberFormatException e) {
                        return done(Reply.error("ERR value is not an integer or out of range"));
                    }
                    int max = config.get(ServerConfig.SCAN_MAX_COUNT);
                    if (n < 1 || n > max) {
                        return done(Reply.error(
                                "ERR COUNT " + n + " is out of range (1 to " + max + ", server.scan.max.count)"));
                    }
                    count = (int) n;
                }
                case "TYPE" -> typeMatches = word(a[i + 1]).equals("STRING");
                default -> {
                    return done(Reply.error("ERR syntax error"));
                }
            }
        }
        KeyRange range;
        if (cursor == 0) {
            range = KeyRange.all();
        } else {
            byte[] after = cursors.find(c.partition().name(), cursor);
            if (after == null) {
                return done(Reply.error("ERR invalid cursor " + Long.toUnsignedString(cursor)
                        + " (not issued for this partition, or evicted: server.scan.cursor.bytes)"));
            }
            range = KeyRange.greaterThan(after);
        }
        int limit = count;
        String partition = c.partition().name();
        byte[] glob = pattern;
        boolean keep = typeMatches;
        // Keys only: until 2026-11-27 SCAN copied every value into the heap too (SCAN 0 COUNT 100000 over 1-MB values
        // held ~100 GB to return key names). The values' blocks are still read, and charged to the quota.
        return c.partition().scanKeysAsync(range, limit).thenApply(ks -> {
            long next = ks.size() < limit ? 0 : cursors.issue(partition, ks.get(ks.size() - 1));
            List<Reply> keys = new ArrayList<>();
            if (keep) {
                for (byte[] k : ks) {
                    if (glob == null || Glob.matches(glob, k)) {
                        keys.add(new Reply.Bulk(k));
                    }
                }
            }
            return new Reply.Array(List.of(Reply.Bulk.of(Long.toUnsignedString(next)), new Reply.Array(keys)));
        });
    }

    // ---- connection and server commands (answer at once) ----

    private CompletableFuture<Reply> ping(Call c, byte[][] a) {
        if (a.length > 2) {
            return done(wrongArity("PING"));
        }
        return done(a.length == 2 ? new Reply.Bulk(a[1]) : new Reply.Simple("PONG"));
    }

    long scanCursorBytes(String partition) {
        return cursors.bytes(partition);
    }

    /** AUTH tenant secret (or AUTH secret for the tenant named "default"); selects the tenant's partition. */
    private CompletableFuture<Reply> auth(Call c, byte[][] a) {
        Session s = c.session();
        if (a.length > 3) {
            return done(Reply.error("ERR syntax error"));
        }
        if (!config.authRequired()) {
            if (a.length == 3 && new String(a[1], StandardCharsets.UTF_8).equals("default")) {
                // as Redis with no password set: its "default" user takes any password, so clients configured with
                // user "default" (redis://default:x@host URLs, HELLO 2 AUTH default x) connect (until 2026-11-27 an
                // error)
                return done(Reply.OK);
            }
            return done(Reply.error("ERR AUTH called without any tenant configured (server.tenant.<name>.secret);"
                    + " this server needs no AUTH"));
        }
        String tenant = a.length == 3 ? new String(a[1], StandardCharsets.UTF_8) : "default";
        byte[] secret = a[a.length - 1];
        ServerConfig.Tenant t = config.tenants().get(tenant);
        // constant-time compare; an unknown tenant compares against a dummy so timing does not tell tenants apart
        byte[] expected = (t == null ? "\0" : t.secret()).getBytes(StandardCharsets.UTF_8);
        boolean ok = MessageDigest.isEqual(expected, secret) && t != null;
        if (!ok) {
            // the tenant name only when it is a configured one: a client that swapped its arguments must not get its
            // secret logged
            stats.authFailure();
            authFailureLog.log("AUTH failed on connection " + s.id + ": "
                    + (t == null ? "unknown tenant" : "wrong secret for tenant " + t.name()));
            return done(Reply.error("WRONGPASS invalid tenant-secret pair"));
        }
        s.tenant = t.name();
        s.partition = node.partition(t.partition());
        return done(Reply.OK);
    }

    /**
     * HELLO [2 [AUTH tenant secret] [SETNAME name]]: RESP2 only (HELLO 3 gets -NOPROTO, so clients fall back); replies
     * the server's properties as a flat list, as Redis does in RESP2.
     */
    private CompletableFuture<Reply> hello(Call c, byte[][] a) {
        Session s = c.session();
        int i = 1;
        if (a.length > 1) {
            String v = new String(a[1], StandardCharsets.US_ASCII);
            if (!v.equals("2")) {
                return done(
                        v.equals("3")
                                ? Reply.error("NOPROTO this server speaks RESP2 only")
                                : Reply.error("NOPROTO unsupported protocol version " + printable(v)));
            }
            i = 2;
        }
        boolean authed = false;
        String name = null;
        byte[][] authArgs = null;
        // every option is checked before AUTH runs, so a refused HELLO leaves the session as it was (as in Redis)
        for (; i < a.length; i++) {
            String opt = word(a[i]);
            if (opt.equals("AUTH") && i + 2 < a.length) {
                authArgs = new byte[][] {a[0], a[i + 1], a[i + 2]};
                i += 2;
            } else if (opt.equals("SETNAME") && i + 1 < a.length) {
                name = new String(a[++i], StandardCharsets.UTF_8);
                Reply bad = badClientName(name); // as CLIENT SETNAME (and Redis' HELLO) checks it
                if (bad != null) {
                    return done(bad);
                }
            } else {
                return done(Reply.error("ERR Syntax error in HELLO option '" + printable(opt) + "'"));
            }
        }
        if (authArgs != null) {
            Reply r = auth(c, authArgs).join();
            if (r instanceof Reply.Error) {
                return done(r);
            }
            authed = true;
        }
        if (config.authRequired() && s.tenant == null && !authed) {
            return done(Reply.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the"
                    + " HELLO <proto> AUTH <tenant> <secret> option can be used to authenticate the client"));
        }
        if (name != null) {
            s.clientName = name.isEmpty() ? null : name;
        }
        return done(new Reply.Array(List.of(
                Reply.Bulk.of("server"),
                Reply.Bulk.of("redis"),
                Reply.Bulk.of("version"),
                Reply.Bulk.of("7.0.0"),
                Reply.Bulk.of("proto"),
                new Reply.Int(2),
                Reply.Bulk.of("id"),
                new Reply.Int(s.id),
                Reply.Bulk.of("mode"),
                Reply.Bulk.of("standalone"),
                Reply.Bulk.of("role"),
                Reply.Bulk.of("master"),
                Reply.Bulk.of("modules"),
                Reply.EMPTY_ARRAY)));
    }

    private CompletableFuture<Reply> client(Call c, byte[][] a) {
        Session s = c.session();
        String sub = word(a[1]);
        switch (sub) {
            case "SETNAME" -> {
                if (a.length != 3) {
                    return done(wrongArity("CLIENT|SETNAME"));
                }
                String name = new String(a[2], StandardCharsets.UTF_8);
                Reply bad = badClientName(name);
                if (bad != null) {
                    return done(bad);
                }
                s.clientName = name.isEmpty() ? null : name;
                return done(Reply.OK);
            }
            case "GETNAME" -> {
                if (a.length != 2) {
                    return done(wrongArity("CLIENT|GETNAME"));
                }
                return done(s.clientName == null ? Reply.NIL : Reply.Bulk.of(s.clientName));
            }
            case "ID" -> {
                if (a.length != 2) {
                    return done(wrongArity("CLIENT|ID"));
                }
                return done(new Reply.Int(s.id));
            }
            case "SETINFO" -> {
                if (a.length != 4) {
                    return done(wrongArity("CLIENT|SETINFO"));
                }
                return done(Reply.OK); // client library name/version: accepted, not kept
            }
            default -> {
                return done(Reply.error("ERR unknown subcommand '" + printable(new String(a[1], StandardCharsets.UTF_8))
                        + "'. Try CLIENT SETNAME, GETNAME, ID."));
            }
        }
    }

    /** COMMAND, COMMAND COUNT, COMMAND INFO name..., COMMAND DOCS (empty: no docs). Enough for redis-cli. */
    private CompletableFuture<Reply> command(Call c, byte[][] a) {
        if (a.length == 1) {
            List<Reply> all = new ArrayList<>();
            for (Spec spec : specs.values()) {
                all.add(describe(spec));
            }
            return done(new Reply.Array(all));
        }
        switch (word(a[1])) {
            case "COUNT" -> {
                return done(new Reply.Int(specs.size()));
            }
            case "INFO" -> {
                List<Reply> out = new ArrayList<>();
                for (int i = 2; i < a.length; i++) {
                    Spec spec = spec(a[i]);
                    out.add(spec == null ? Reply.NIL : describe(spec));
                }
                return done(new Reply.Array(out));
            }
            case "DOCS" -> {
                return done(Reply.EMPTY_ARRAY);
            }
            default -> {
                return done(Reply.error("ERR unknown subcommand '" + printable(new String(a[1], StandardCharsets.UTF_8))
                        + "'. Try COMMAND COUNT, INFO, DOCS."));
            }
        }
    }

    private static Reply describe(Spec spec) {
        List<Reply> flags = new ArrayList<>();
        for (String f : spec.flags()) {
            flags.add(new Reply.Simple(f));
        }
        return new Reply.Array(List.of(
                Reply.Bulk.of(spec.name().toLowerCase(Locale.ROOT)),
                new Reply.Int(spec.arity()),
                new Reply.Array(flags),
                new Reply.Int(spec.firstKey()),
                new Reply.Int(spec.lastKey()),
                new Reply.Int(spec.step())));
    }

    /** SELECT 0 is accepted (a no-op); other databases are refused: the partition is chosen by AUTH. */
    private CompletableFuture<Reply> select(Call c, byte[][] a) {
        if (new String(a[1], StandardCharsets.US_ASCII).equals("0")) {
            return done(Reply.OK);
        }
        return done(Reply.error("ERR SELECT is not supported: a connection works on its tenant's partition, chosen by"
                + " AUTH tenant secret (only SELECT 0 is accepted)"));
    }

    /**
     * CONFIG GET: "save" is "" (no snapshots) and "appendonly" is "yes" (every write goes to the partition's WAL first),
     * which is what redis-benchmark asks; other parameters are not Redis', so the list is empty. Nothing can be set.
     */
    private CompletableFuture<Reply> configCmd(Call c, byte[][] a) {
        if (word(a[1]).equals("GET")) {
            List<Reply> out = new ArrayList<>();
            for (int i = 2; i < a.length; i++) {
                String param = new String(a[i], StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
                if (param.equals("save") || param.equals("appendonly")) {
                    out.add(Reply.Bulk.of(param));
                    out.add(Reply.Bulk.of(param.equals("save") ? "" : "yes"));
                }
            }
            return done(new Reply.Array(out));
        }
        return done(Reply.error("ERR CONFIG " + printable(new String(a[1], StandardCharsets.UTF_8))
                + " is not supported: the server is configured by its properties file (./sluice serve --config)"));
    }

    /**
     * SLUICE HEALTH: the connection's partition's health, as {@code Partition.health()} gives it ("ok", or the
     * background error and what it stopped). SLUICE RESUME: {@code Partition.resume()} for that partition, once the
     * cause of a background error is fixed; +OK when it is healthy afterwards (a no-op when it was), else -ERR saying
     * why. A fault probe (2026-11-29) found that after a non-retryable WAL error every SET kept failing with "call
     * Partition.resume()", which no Redis client could reach: only a restart recovered the partition.
     */
    private CompletableFuture<Reply> sluiceCmd(Call c, byte[][] a) {
        String sub = word(a[1]);
        Partition p = c.partition();
        return switch (sub) {
            case "HEALTH" -> done(Reply.Bulk.of(describe(p.health())));
            case "RESUME" ->
                CompletableFuture.supplyAsync(() -> {
                    log.info("partition '{}': RESUME from connection {}", p.name(), c.session().id);
                    dev.sluice.core.sensor.PartitionHealth h = p.resume();
                    return h.ok() || !h.writesStopped()
                            ? (Reply) Reply.OK
                            : Reply.error("ERR partition '" + p.name() + "' still refuses writes: " + describe(h));
                });
            default ->
                done(Reply.error("ERR unknown subcommand '" + printable(new String(a[1], StandardCharsets.UTF_8))
                        + "' of SLUICE; known: HEALTH, RESUME"));
        };
    }

    private static String describe(dev.sluice.core.sensor.PartitionHealth h) {
        if (h.ok()) {
            return "ok";
        }
        return h.backgroundError()
                + (h.writesStopped() ? "; writes stopped" : "; writes flow")
                + (h.autoRecovering() ? "; RocksDB is recovering on its own" : "")
                + (h.recoverable() ? "" : "; not recoverable by RESUME (damage)");
    }

    private CompletableFuture<Reply> info(Call c, byte[][] a) {
        // INFO [section [section ...]], as Redis 7: several sections in one request (until 2026-11-27: a syntax error)
        java.util.Set<String> sections = new java.util.LinkedHashSet<>();
        for (int i = 1; i < a.length; i++) {
            sections.add(word(a[i]).toLowerCase(Locale.ROOT));
        }
        if (sections.isEmpty()) {
            sections.add("default");
        }
        return done(new Reply.Bulk(status.info(sections, c).getBytes(StandardCharsets.UTF_8)));
    }

    // ---- errors ----

    /** Maps an engine failure to the error a Redis client expects; counts refusals for {@code partition} too. */
    Reply toError(Throwable t, String partition) {
        Throwable e = t;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof OverloadedException) {
            stats.busy(partition);
            return Reply.error("BUSY " + e.getMessage());
        }
        if (e instanceof QuotaExceededException) {
            stats.quota(partition);
            return Reply.error("QUOTA " + e.getMessage());
        }
        stats.error();
        if (e instanceof IllegalArgumentException || e instanceof SluiceException) {
            // the engine tells a Java caller to call Partition.resume(); a Redis client does that with SLUICE RESUME
            String m = String.valueOf(e.getMessage())
                    .replace("Partition.health()", "SLUICE HEALTH")
                    .replace("call Partition.resume()", "send SLUICE RESUME")
                    .replace("Partition.resume()", "SLUICE RESUME")
                    .replace("call resume()", "send SLUICE RESUME");
            return Reply.error("ERR " + m);
        }
        if (e instanceof IllegalStateException) {
            return Reply.error("ERR " + e.getMessage() + " (the server is shutting down or the partition is closed)");
        }
        log.warn("unexpected failure of a request", e);
        return Reply.error("ERR internal error: " + e);
    }

    private static Reply unknownCommand(byte[][] args) {
        StringBuilder sb = new StringBuilder("ERR unknown command '")
                .append(printable(new String(args[0], StandardCharsets.UTF_8)))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.length && i < 4; i++) {
            sb.append('\'')
                    .append(printable(new String(args[i], StandardCharsets.UTF_8)))
                    .append("' ");
        }
        return Reply.error(sb.toString());
    }

    private static Reply wrongArity(String name) {
        return Reply.error("ERR wrong number of arguments for '" + name.toLowerCase(Locale.ROOT) + "' command");
    }

    private static CompletableFuture<Reply> done(Reply r) {
        return CompletableFuture.completedFuture(r);
    }

    /**
     * A command or option name upper-cased in ASCII only, as Redis compares them: {@code toUpperCase} folds other
     * letters too ({@code ſet} became {@code SET}, {@code pıng} {@code PING}), so a filter that blocks commands by their
     * ASCII names could be bypassed (a server probe, 2026-11-28).
     */
    private static String word(byte[] b) {
        char[] c = new String(b, StandardCharsets.UTF_8).toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (c[i] >= 'a' && c[i] <= 'z') {
                c[i] -= 'a' - 'A';
            }
        }
        return new String(c);
    }

    /** Redis' rule for client names: no spaces, newlines or other characters outside '!'..'~'. */
    /**
     * The longest client name kept: a name stays with its connection, and until 2026-11-29 it could be a whole bulk
     * string (a probe pinned a 512-MiB heap with 25 connections named 16 MiB each). Redis sets no bound of its own.
     */
    static final int MAX_CLIENT_NAME = 1024;

    private static Reply badClientName(String name) {
        if (name.length() > MAX_CLIENT_NAME) {
            return Reply.error("ERR client name longer than " + MAX_CLIENT_NAME + " characters");
        }
        for (char ch : name.toCharArray()) {
            if (ch <= ' ' || ch > '~') {
                return Reply.error("ERR Client names cannot contain spaces, newlines or special characters.");
            }
        }
        return null;
    }

    /** At most 64 printable characters of user input, for error messages and logs. */
    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            sb.append(c >= 32 && c < 127 ? c : '?');
        }
        return s.length() > 64 ? sb + "..." : sb.toString();
    }
}
