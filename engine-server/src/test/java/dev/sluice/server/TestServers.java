package dev.sluice.server;

import java.nio.file.Path;
import java.util.Properties;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/** Starts real servers (real RocksDB in a temp dir, the priority Env when available) on free ports. */
final class TestServers {
    private TestServers() {}

    /** A server over {@code dir} with {@code kv} as extra properties (alternating key, value). */
    static SluiceServer start(Path dir, String... kv) {
        return SluiceServer.start(config(dir, kv));
    }

    static ServerConfig config(Path dir, String... kv) {
        Properties p = new Properties();
        p.setProperty("data.dir", dir.resolve("data").toString());
        p.setProperty("server.port", "0");
        p.setProperty("server.http.port", "0");
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return ServerConfig.fromProperties(p, dir);
    }

    /** A Jedis client that speaks plain RESP2 without HELLO (as redis-cli and older clients do). */
    static Jedis jedis(SluiceServer s) {
        return new Jedis(
                new HostAndPort("127.0.0.1", s.port()),
                DefaultJedisClientConfig.builder().timeoutMillis(30_000).build());
    }

    /** A Jedis client that negotiates with HELLO 2 first. */
    static Jedis jedisHello(SluiceServer s) {
        return new Jedis(
                new HostAndPort("127.0.0.1", s.port()),
                DefaultJedisClientConfig.builder()
                        .protocol(RedisProtocol.RESP2)
                        .timeoutMillis(30_000)
                        .build());
    }
}
