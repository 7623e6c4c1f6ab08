package dev.sluice.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Async requests run later on a pool thread: they must not read the caller's arrays then. The single async thread is
 * held busy (a callback of an earlier request blocks on it) so every request under test surely runs after the caller
 * reused its arrays.
 */
class AsyncArgumentsTest {
    @TempDir
    Path dir;

    SluiceNode node;
    Partition p;
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void open() {
        node = Sluice.open(
                SluiceConfig.builder(dir).env("default").asyncThreads(1).build());
        p = node.defaultPartition();
    }

    @AfterEach
    void close() {
        release.countDown();
        node.close();
    }

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    /** Parks the only async thread in a completion callback until {@link #release} opens. */
    private void holdTheAsyncThread() throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        while (held.getCount() > 0) {
            // The callback runs on the pool thread only if it was attached before the request completed; else it runs
            // here and does nothing, and we try again.
            p.getAsync(b("any")).whenComplete((v, e) -> {
                if (Thread.currentThread().getName().startsWith("sluice-async")) {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            held.await(5, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void getAsyncReadsTheKeyAsItWasAtTheCall() throws Exception {
        p.put(b("k1"), b("one"));
        p.put(b("k2"), b("two"));
        holdTheAsyncThread();
        byte[] key = b("k1");
        CompletableFuture<byte[]> f = p.getAsync(key);
        key[1] = '2'; // the caller reuses its buffer
        release.countDown();
        assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(b("one"));
    }

    @Test
    void deleteAsyncDeletesTheKeyAsItWasAtTheCall() throws Exception {
        p.put(b("d1"), b("one"));
        p.put(b("d2"), b("two"));
        holdTheAsyncThread();
        byte[] key = b("d1");
        CompletableFuture<Void> f = p.deleteAsync(key, WriteMode.DEFAULT);
        key[1] = '2';
        release.countDown();
        f.get(30, TimeUnit.SECONDS);
        assertThat(p.get(b("d1"))).as("the key named at the call is deleted").isNull();
        assertThat(p.get(b("d2"))).as("the key the buffer holds later is not").isEqualTo(b("two"));
    }

    @Test
    void multiGetAsyncReadsTheKeysAsTheyWereAtTheCall() throws Exception {
        p.put(b("m1"), b("one"));
        p.put(b("m2"), b("two"));
        holdTheAsyncThread();
        byte[] k = b("m1");
        List<byte[]> keys = new ArrayList<>(List.of(k, b("m2")));
        CompletableFuture<List<byte[]>> f = p.multiGetAsync(keys);
        k[1] = '2';
        keys.set(1, b("m1"));
        release.countDown();
        List<byte[]> vs = f.get(30, TimeUnit.SECONDS);
        assertThat(vs.get(0)).isEqualTo(b("one"));
        assertThat(vs.get(1)).isEqualTo(b("two"));
    }

    @Test
    void scanAsyncUsesTheRangeAsItWasAtTheCall() throws Exception {
        p.put(b("s1"), b("one"));
        p.put(b("s2"), b("two"));
        holdTheAsyncThread();
        byte[] start = b("s1");
        byte[] end = b("s2");
        CompletableFuture<List<KeyValue>> f = p.scanAsync(KeyRange.closedOpen(start, end), 10);
        start[1] = '0';
        end[1] = '9';
        release.countDown();
        List<KeyValue> kvs = f.get(30, TimeUnit.SECONDS);
        assertThat(kvs).hasSize(1);
        assertThat(kvs.get(0).key()).isEqualTo(b("s1"));
    }

    @Test
    void aNegativeScanLimitIsRefusedAtTheCallNotByTheFuture() {
        // like a null range or a bad key: thrown by the call itself, before admission and the pool
        assertThatThrownBy(() -> p.scanAsync(KeyRange.all(), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit must be >= 0");
        assertThatThrownBy(() -> p.scanKeysAsync(KeyRange.all(), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit must be >= 0");
    }
}
