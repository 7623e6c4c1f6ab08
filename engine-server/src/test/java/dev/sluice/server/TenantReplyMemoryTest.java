package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A throttled tenant cannot take the other tenants' reply memory: its GETs wait for quota with their worst case counted
 * in the server-wide bound, and before 2026-11-28 enough of its pipelining connections held all of it, so that another
 * tenant's pipeline ran one request at a time. Real server, real RocksDB, raw RESP sockets.
 */
class TenantReplyMemoryTest {
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    /** Floors go to the partitions connections reach: without tenants, that is the default partition alone. */
    @Test
    void withoutTenantsTheDefaultPartitionHasTheWholeBoundAndWithThemOnlyTheirPartitionsHaveFloors() {
        try (SluiceServer s = TestServers.start(
                dir, "partitions", "alpha,beta,gamma", "server.max.reply.bytes", Long.toString(12 * MIB))) {
            ReplyMemory m = s.replyMemory();
            String served = s.node().defaultPartition().name();
            assertThat(m.roomFor(m.share(served), 12 * MIB)).isTrue();
            assertThat(m.roomFor(m.share(served), 12 * MIB + 1)).isFalse();
        }
        try (SluiceServer s = TestServers.start(
                dir,
                "partitions",
                "alpha,beta,gamma",
                "server.tenant.alice.secret",
                "a-secret",
                "server.tenant.alice.partition",
                "alpha",
                "server.tenant.carol.secret",
                "c-secret",
                "server.tenant.carol.partition",
                "alpha",
                "server.tenant.bob.secret",
                "b-secret",
                "server.tenant.bob.partition",
                "beta",
                "server.max.reply.bytes",
                Long.toString(12 * MIB))) {
            ReplyMemory m = s.replyMemory();
            assertThat(m.share("alpha").floor).isEqualTo(3 * MIB);
            assertThat(m.share("beta").floor).isEqualTo(3 * MIB);
            assertThat(m.share("gamma").floor).as("no tenant uses gamma").isZero();
            assertThat(m.roomFor(m.share("beta"), 9 * MIB)).isTrue();
            assertThat(m.roomFor(m.share("beta"), 9 * MIB + 1)).isFalse();
        }
    }

    @Test
    void aThrottledTenantsWaitingRequestsLeaveTheOtherTenantItsFloor() throws Exception {
        try (SluiceServer s = TestServers.start(
                dir,
                "partitions",
                "alpha,beta",
                "server.tenant.alice.secret",
                "a-secret",
                "server.tenant.alice.partition",
                "alpha",
                "server.tenant.bob.secret",
                "b-secret",
                "server.tenant.bob.partition",
                "beta",
                "partition.alpha.rcu",
                "4", // four reads a second: alice's GETs wait for their quota
                "partition.alpha.quota.burst.ms",
                "1",
                "partition.alpha.quota.max.wait.ms",
                "60000",
                "limits.max.value.bytes",
                Long.toString(MIB), // a running GET counts 1 MiB
                "server.max.reply.bytes.per.connection",
                Long.toString(4 * MIB),
                "server.max.reply.bytes",
                Long.toString(16 * MIB), // floors of 4 MiB for alpha and beta, 8 MiB shared
                "server.shutdown.timeout.ms",
                "200")) {
            try (Jedis bob = TestServers.jedis(s)) {
                bob.auth("bob", "b-secret");
                assertThat(bob.set("small", "v")).isEqualTo("OK");
            }
            List<RawClient> alice = new ArrayList<>();
            try {
                StringBuilder pipeline = new StringBuilder(RawClient.command("AUTH", "alice", "a-secret"));
                for (int i = 0; i < 12; i++) {
                    pipeline.append(RawClient.command("GET", "k" + i));
                }
                for (int c = 0; c < 4; c++) { // 4 connections × 4 MiB each: 16 MiB wanted, more than her 12
                    alice.add(new RawClient(s.port()).send(pipeline.toString()));
                }
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (s.replyMemory().share("alpha").held() < 12 * MIB && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // her floor and the shared half, and beyond them at most the one request each connection always runs
                long alphaBound = 12 * MIB + alice.size() * MIB;
                assertThat(s.replyMemory().share("alpha").held())
                        .as("alice's waiting GETs")
                        .isBetween(12 * MIB - MIB, alphaBound);

                try (RawClient bob = new RawClient(s.port())) {
                    StringBuilder p = new StringBuilder(RawClient.command("AUTH", "bob", "b-secret"))
                            .append(RawClient.command("CLIENT", "SETNAME", "bob-pipe"));
                    int gets = 40;
                    for (int i = 0; i < gets; i++) {
                        p.append(RawClient.command("GET", "small"));
                    }
                    bob.send(p.toString());
                    assertThat(bob.line()).isEqualTo("+OK");
                    assertThat(bob.line()).isEqualTo("+OK");
                    for (int i = 0; i < gets; i++) {
                        assertThat(bob.line()).as("GET %d", i).isEqualTo("$1");
                        assertThat(bob.line()).isEqualTo("v");
                    }
                    assertThat(s.peakReplyBytes("bob-pipe"))
                            .as("bob's pipeline ran more than one GET at a time (each counts 1 MiB)")
                            .isGreaterThan(MIB + MIB / 2)
                            .isLessThanOrEqualTo(4 * MIB + 1024);
                }
                assertThat(s.replyMemory().share("alpha").held()).isLessThanOrEqualTo(alphaBound);
            } finally {
                for (RawClient c : alice) {
                    c.close();
                }
            }
            // alice's started GETs still wait for quota (up to ~4 s), their connections gone: once they ran, nothing of
            // the bound may stay counted
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (s.replyMemory().held() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(s.replyMemory().held())
                    .as("reply bytes counted once every request ran")
                    .isZero();
            assertThat(s.replyMemory().share("alpha").held()).isZero();
        }
    }
}
