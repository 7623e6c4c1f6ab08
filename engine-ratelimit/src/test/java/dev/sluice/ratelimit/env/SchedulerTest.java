package dev.sluice.ratelimit.env;

import static dev.sluice.ratelimit.env.NativeTestSupport.requireNative;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.sensor.IoClass;
import dev.sluice.core.spi.IoPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native scheduler driven by synthetic I/O (no files): class caps, strict priority with its anti-starvation bound,
 * weighted fair sharing and Calcspar time windows. Rates are checked against the token math of the cap or budget (an
 * upper bound that holds however busy the machine is) plus a loose lower bound, shares and waits against counters.
 */
class SchedulerTest {
    private static final Duration WINDOW = Duration.ofMillis(1500);
    /** Caps and node budgets let an idle class or node burst 20 ms worth of their rate. */
    private static final double BURST = 0.02;

    @BeforeAll
    static void nativeAvailable() {
        requireNative();
    }

    @Test
    void classOpsCapHolds() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setClassLimit(IoClass.USER_GET, 1000, 0);
            Rate r = measure(
                    env, IoClass.USER_GET, () -> new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2));
            // token math: reads starting in the window are spaced 1/cap apart (plus the 20 ms burst and one reservation
            // per thread made before it), however slow the machine; uncapped, synthetic reads run at millions per
            // second
            assertThat(r.ops).isLessThanOrEqualTo((long) (1000 * (r.secs + BURST)) + 2 + 1);
            assertThat(r.ops).as("loose lower bound").isGreaterThan((long) (0.5 * 1000 * r.secs));
            assertThat(env.ioDetail().get(IoClass.USER_GET).delayedOps()).isPositive();
            assertThat(env.ioDetail().get(IoClass.USER_GET).waitNanos()).isPositive();
        }
    }

    @Test
    void classBytesCapHolds() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            double cap = 16.0 * (1 << 20);
            env.setClassLimit(IoClass.COMPACTION_DEEP, 0, cap);
            Rate r = measure(
                    env,
                    IoClass.COMPACTION_DEEP,
                    () -> new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.WRITE, 256 * 1024, 2));
            assertThat(r.bytes).isLessThanOrEqualTo((long) (cap * (r.secs + BURST)) + 3 * 256 * 1024);
            assertThat(r.bytes).as("loose lower bound").isGreaterThan((long) (0.5 * cap * r.secs));
        }
    }

    @Test
    void removingACapReleasesWaitingIo() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setClassLimit(IoClass.PREFETCH, 0.01, 0); // one I/O per 100 s
            env.syntheticIo(IoClass.PREFETCH, FaultRule.Op.READ, 4096, false); // uses the burst allowance
            CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> {
                env.syntheticIo(IoClass.PREFETCH, FaultRule.Op.READ, 4096, false);
                return env.syntheticIo(IoClass.PREFETCH, FaultRule.Op.READ, 4096, false);
            });
            Thread.sleep(200);
            assertThat(blocked).isNotDone();
            env.setClassLimit(IoClass.PREFETCH, 0, 0);
            assertThat(blocked.get(10, TimeUnit.SECONDS)).isPositive();
        }
    }

    @Test
    void urgentIoBypassesClassCaps() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setClassLimit(IoClass.COMPACTION_L0, 0.01, 0);
            env.syntheticIo(IoClass.COMPACTION_L0, FaultRule.Op.WRITE, 4096, false);
            CompletableFuture<Long> urgent = CompletableFuture.supplyAsync(() -> {
                for (int i = 0; i < 100; i++) {
                    env.syntheticIo(IoClass.COMPACTION_L0, FaultRule.Op.WRITE, 4096, true);
                }
                return 0L;
            });
            assertThat(urgent.get(10, TimeUnit.SECONDS)).isZero();
            assertThat(env.ioDetail().get(IoClass.COMPACTION_L0).urgentOps()).isEqualTo(100);
        }
    }

    @Test
    void strictPriorityServesUrgentTierFirstButBoundsStarvation() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            IoPolicy.StrictPriority cruise = IoPolicy.cruiseDb(Duration.ofMillis(50));
            env.setPolicy(new IoPolicy.StrictPriority(
                    cruise.tiers(), cruise.starvationBound(), new IoPolicy.NodeBudget(2000, 0)));
            IoDetail before = env.ioDetail();
            long t0 = System.nanoTime();
            try (SyntheticLoad gets = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad deep =
                            new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, 2).start()) {
                SyntheticLoad.run(WINDOW);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            IoDetail d = env.ioDetail().minus(before);
            long g = d.get(IoClass.USER_GET).ops();
            long c = d.get(IoClass.COMPACTION_DEEP).ops();
            assertThat(g + c).as("node budget 2000 units/s").isLessThanOrEqualTo((long) (2000 * (secs + BURST)) + 4);
            assertThat(g).as("tier 0 gets the budget").isGreaterThan(5 * c);
            assertThat(c).as("anti-starvation bound lets tier 2 through").isPositive();
            // the lower tier waits far longer per I/O than the top tier
            double gWait = (double) d.get(IoClass.USER_GET).waitNanos() / g;
            double cWait = (double) d.get(IoClass.COMPACTION_DEEP).waitNanos() / c;
            assertThat(cWait).isGreaterThan(3 * gWait);
        }
    }

    @Test
    void strictPriorityWithoutBudgetHoldsLowerTierWhileUpperTierIsBusy() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setPolicy(IoPolicy.cruiseDb(Duration.ofMillis(20)));
            // I/Os take time in a device with 200 µs latency and no other limit
            env.configureDevice(new ContractDevice(true, 0, 0, 0, Duration.ofNanos(200_000), 0, 256 * 1024));
            // no token budget: a compaction I/O waits while user I/O is in flight or waiting (or 20 ms passed)
            IoDetail before = env.ioDetail();
            try (SyntheticLoad gets = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad deep =
                            new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, 1).start()) {
                SyntheticLoad.run(Duration.ofMillis(800));
            }
            IoDetail d = env.ioDetail().minus(before);
            assertThat(d.get(IoClass.USER_GET).ops())
                    .isGreaterThan(10 * d.get(IoClass.COMPACTION_DEEP).ops());
            assertThat(d.get(IoClass.COMPACTION_DEEP).ops()).isPositive();
            assertThat(d.get(IoClass.COMPACTION_DEEP).delayedOps()).isPositive();
        }
    }

    @Test
    void weightedFairSharesFlushAndCompactionTenToOne() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            double budget = 16.0 * (1 << 20);
            env.setPolicy(IoPolicy.flexEngineNode(budget));
            IoDetail before = env.ioDetail();
            long t0 = System.nanoTime();
            try (SyntheticLoad flush = new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, 64 * 1024, 2).start();
                    SyntheticLoad compaction =
                            new SyntheticLoad(env, IoClass.COMPACTION_HIGH, FaultRule.Op.WRITE, 64 * 1024, 2).start()) {
                SyntheticLoad.run(WINDOW);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            IoDetail d = env.ioDetail().minus(before);
            long f = d.get(IoClass.FLUSH).bytes();
            long c = d.get(IoClass.COMPACTION_HIGH).bytes();
            assertThat(f + c)
                    .as("node bytes budget")
                    .isLessThanOrEqualTo((long) (budget * (secs + BURST)) + 4 * 64 * 1024);
            assertThat(f + c).as("loose lower bound").isGreaterThan((long) (0.5 * budget * secs));
            assertThat((double) f / c).as("flush:compaction share").isBetween(5.0, 20.0);
        }
    }

    @Test
    void timeWindowsServeTheTopTierFirstAndGiveLowerTiersOnlyLeftovers() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            double paid = 500;
            env.setPolicy(IoPolicy.calcspar(paid));
            env.setClassLimit(IoClass.USER_GET, 300, 0); // the top tier asks for 300 of the 500 tokens per second
            IoDetail before;
            long t0;
            try (SyntheticLoad gets = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad deep =
                            new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, 2).start()) {
                SyntheticLoad.run(Duration.ofMillis(1200)); // one full second of history
                before = env.ioDetail();
                t0 = System.nanoTime();
                SyntheticLoad.run(Duration.ofMillis(2000));
                double[] windows = env.schedulerStats().windowStarts();
                assertThat(windows[0]).isZero();
                assertThat(windows[2]).as("low queue opens late in the second").isBetween(0.3, 0.95);
                assertThat(env.budgetUse())
                        .as("budget use of the last full second")
                        .isGreaterThan(0.6);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            IoDetail d = env.ioDetail().minus(before);
            long g = d.get(IoClass.USER_GET).ops();
            long c = d.get(IoClass.COMPACTION_DEEP).ops();
            // tokens are refreshed per second and never carried over: at most `paid` per started second
            assertThat(g + c).isLessThanOrEqualTo((long) (paid * Math.ceil(secs + 0.01)));
            assertThat(g / secs).as("top tier gets what it asks for").isGreaterThan(0.8 * 300);
            assertThat(c).as("low queue uses leftover tokens inside its window").isPositive();
            assertThat(c / secs).isLessThan(paid - 0.8 * 300);
        }
    }

    @Test
    void passThroughCountsEveryIoExactlyAndDelaysNone() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            IoDetail before = env.ioDetail();
            int perThread = 500;
            List<CompletableFuture<Void>> threads = new java.util.ArrayList<>();
            for (IoClass c : List.of(IoClass.WAL, IoClass.USER_GET, IoClass.FLUSH, IoClass.COMPACTION_DEEP)) {
                FaultRule.Op op =
                        c == IoClass.USER_GET || c == IoClass.COMPACTION_DEEP ? FaultRule.Op.READ : FaultRule.Op.WRITE;
                threads.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < perThread; i++) {
                        assertThat(env.syntheticIo(c, op, 4096, false)).isNotNegative();
                    }
                    env.syntheticIo(c, FaultRule.Op.SYNC, 0, false);
                }));
            }
            for (CompletableFuture<Void> t : threads) {
                t.get(60, TimeUnit.SECONDS);
            }
            IoDetail d = env.ioDetail().minus(before);
            for (IoClass c : List.of(IoClass.WAL, IoClass.USER_GET, IoClass.FLUSH, IoClass.COMPACTION_DEEP)) {
                IoClassDetail cd = d.get(c);
                assertThat(cd.ops()).as("%s ops", c).isEqualTo(perThread);
                assertThat(cd.bytes()).as("%s bytes", c).isEqualTo(perThread * 4096L);
                assertThat(cd.syncOps()).as("%s syncs", c).isEqualTo(1);
                assertThat(cd.delayedOps()).as("%s delayed", c).isZero();
                assertThat(cd.waitNanos()).as("%s wait", c).isZero();
                assertThat(java.util.Arrays.stream(cd.histogram()).sum())
                        .as("%s latency samples", c)
                        .isEqualTo(perThread);
            }
            assertThat(d.get(IoClass.USER_SCAN).ops()).isZero();
            PriorityEnv.SchedulerStats st = env.schedulerStats();
            assertThat(st.grantedUnits()).as("no node policy involved").isZero();
            assertThat(st.waiting()).isZero();
        }
    }

    @Test
    void switchingBackToPassThroughReleasesEveryWaiter() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setPolicy(new IoPolicy.StrictPriority(
                    IoPolicy.cruiseDb(Duration.ZERO).tiers(), Duration.ZERO, new IoPolicy.NodeBudget(0.5, 0)));
            // the first I/O takes the burst tokens, the next ones wait ~2 s each for a token
            env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false);
            List<CompletableFuture<Long>> waiters = List.of(
                    CompletableFuture.supplyAsync(
                            () -> env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false)),
                    CompletableFuture.supplyAsync(
                            () -> env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false)),
                    CompletableFuture.supplyAsync(
                            () -> env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false)));
            // all three queue; at most one of them gets the next token (one per 2 s) before the switch
            awaitTrue(
                    () -> env.schedulerStats().waiting()
                                    + waiters.stream()
                                            .filter(CompletableFuture::isDone)
                                            .count()
                            == 3,
                    "three I/Os queued or done");
            long queued = env.schedulerStats().waiting();
            assertThat(queued).isBetween(2L, 3L);
            env.setPolicy(IoPolicy.passThrough());
            for (CompletableFuture<Long> w : waiters) {
                assertThat(w.get(10, TimeUnit.SECONDS)).isPositive();
            }
            assertThat(env.policy()).isInstanceOf(IoPolicy.PassThrough.class);
            IoClassDetail deep = env.ioDetail().get(IoClass.COMPACTION_DEEP);
            assertThat(deep.ops()).isEqualTo(4);
            assertThat(deep.delayedOps()).as("exactly the queued I/Os waited").isEqualTo(3);
            PriorityEnv.SchedulerStats st = env.schedulerStats();
            assertThat(st.waiting()).isZero();
            assertThat(st.inFlight()).as("every grant released").containsOnly(0L);
            // under pass-through nothing waits any more
            long waitBefore = deep.waitNanos();
            for (int i = 0; i < 100; i++) {
                env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false);
            }
            IoClassDetail after = env.ioDetail().get(IoClass.COMPACTION_DEEP);
            assertThat(after.ops()).isEqualTo(104);
            assertThat(after.delayedOps()).isEqualTo(3);
            assertThat(after.waitNanos()).isEqualTo(waitBefore);
        }
    }

    @Test
    void aWalClassCapWaitIsBoundedAndCountedAsAnOverrun() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setForegroundWaitBound(Duration.ofMillis(200));
            env.setClassLimit(IoClass.WAL, 0.01, 0); // one write per 100 s
            env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false); // uses the burst allowance
            long overruns = env.schedulerStats().foregroundOverruns();
            CompletableFuture<Long> second =
                    CompletableFuture.supplyAsync(() -> env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false));
            long ns = second.get(20, TimeUnit.SECONDS); // unbounded, it would wait ~100 s
            assertThat(ns)
                    .as("it waited for the bound")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(190).toNanos());
            assertThat(env.schedulerStats().foregroundOverruns() - overruns).isEqualTo(1);
            assertThat(env.ioDetail().get(IoClass.WAL).delayedOps()).isEqualTo(1);

            // a background class is not bounded: its I/O keeps waiting until the cap is lifted
            env.setClassLimit(IoClass.PREFETCH, 0.01, 0);
            env.syntheticIo(IoClass.PREFETCH, FaultRule.Op.READ, 4096, false);
            CompletableFuture<Long> prefetch = CompletableFuture.supplyAsync(
                    () -> env.syntheticIo(IoClass.PREFETCH, FaultRule.Op.READ, 4096, false));
            Thread.sleep(600);
            assertThat(prefetch).isNotDone();
            env.setClassLimit(IoClass.PREFETCH, 0, 0);
            assertThat(prefetch.get(10, TimeUnit.SECONDS)).isPositive();
            assertThat(env.schedulerStats().foregroundOverruns() - overruns).isEqualTo(1);
        }
    }

    @Test
    void aWalWaitForNodeTokensIsBounded() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.setForegroundWaitBound(Duration.ofMillis(200));
            // 0.1 units/s: after the first I/O the node budget is ~10 s in debt
            env.setPolicy(new IoPolicy.StrictPriority(
                    IoPolicy.cruiseDb(Duration.ZERO).tiers(), Duration.ZERO, new IoPolicy.NodeBudget(0.1, 0)));
            env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false);
            List<CompletableFuture<Long>> writes = List.of(
                    CompletableFuture.supplyAsync(() -> env.syntheticIo(IoClass.WAL, FaultRule.Op.WRITE, 4096, false)),
                    CompletableFuture.supplyAsync(
                            () -> env.syntheticIo(IoClass.USER_GET, FaultRule.Op.READ, 4096, false)));
            for (CompletableFuture<Long> w : writes) {
                assertThat(w.get(20, TimeUnit.SECONDS))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(190).toNanos());
            }
            PriorityEnv.SchedulerStats st = env.schedulerStats();
            assertThat(st.foregroundOverruns()).isEqualTo(2);
            assertThat(st.waiting()).isZero();
            assertThat(st.inFlight()).containsOnly(0L);
        }
    }

    @Test
    void aPolicySwitchKeepsCountingGrantedIoInFlight() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            // strict priority without a budget and without a starvation bound: tier 2 waits while tier 0 is in flight
            env.setPolicy(IoPolicy.cruiseDb(Duration.ZERO));
            env.configureDevice(new ContractDevice(true, 0, 0, 0, Duration.ofMillis(900), 0, 256 * 1024));
            CompletableFuture<Long> get = CompletableFuture.supplyAsync(
                    () -> env.syntheticIo(IoClass.USER_GET, FaultRule.Op.READ, 4096, false));
            awaitTrue(() -> env.schedulerStats().inFlight()[0] == 1, "the Get is in flight");
            env.setPolicy(IoPolicy.cruiseDb(Duration.ZERO)); // a policy switch while the Get is in the device
            assertThat(env.schedulerStats().inFlight()[0])
                    .as("the granted Get is still in flight")
                    .isEqualTo(1);
            CompletableFuture<Long> deep = CompletableFuture.supplyAsync(
                    () -> env.syntheticIo(IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, false));
            get.get(20, TimeUnit.SECONDS);
            deep.get(20, TimeUnit.SECONDS);
            assertThat(env.ioDetail().get(IoClass.COMPACTION_DEEP).delayedOps())
                    .as("the compaction I/O waited for the Get")
                    .isEqualTo(1);
            assertThat(env.schedulerStats().inFlight()).containsOnly(0L);
        }
    }

    @Test
    void policySwitchesUnderLoadLoseNoWaiterAndLeaveNoCountBehind() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            env.configureDevice(new ContractDevice(true, 0, 0, 0, Duration.ofNanos(200_000), 0, 256 * 1024));
            List<IoPolicy> policies = List.of(
                    IoPolicy.cruiseDb(Duration.ofMillis(20)),
                    new IoPolicy.StrictPriority(
                            IoPolicy.cruiseDb(Duration.ZERO).tiers(),
                            Duration.ofMillis(20),
                            new IoPolicy.NodeBudget(2000, 0)),
                    IoPolicy.flexEngineNode(16.0 * (1 << 20)),
                    IoPolicy.calcspar(2000),
                    IoPolicy.passThrough());
            long minInFlight = 0;
            long switches = 0;
            try (SyntheticLoad gets = new SyntheticLoad(env, IoClass.USER_GET, FaultRule.Op.READ, 4096, 2).start();
                    SyntheticLoad flush =
                            new SyntheticLoad(env, IoClass.FLUSH, FaultRule.Op.WRITE, 64 * 1024, 1).start();
                    SyntheticLoad deep =
                            new SyntheticLoad(env, IoClass.COMPACTION_DEEP, FaultRule.Op.READ, 4096, 1).start()) {
                long end = System.nanoTime() + Duration.ofMillis(1500).toNanos();
                while (System.nanoTime() < end) {
                    env.setPolicy(policies.get((int) (switches++ % policies.size())));
                    for (long n : env.schedulerStats().inFlight()) {
                        minInFlight = Math.min(minInFlight, n);
                    }
                    Thread.sleep(5);
                }
                env.setPolicy(IoPolicy.passThrough());
            } // close() fails the test if a worker stays blocked
            assertThat(switches).isGreaterThan(10);
            assertThat(minInFlight).as("in-flight counts never negative").isZero();
            PriorityEnv.SchedulerStats st = env.schedulerStats();
            assertThat(st.waiting()).isZero();
            assertThat(st.inFlight()).as("every grant released").containsOnly(0L);
        }
    }

    @Test
    void concurrentClassLimitChangesKeepTheActiveCapCount() throws Exception {
        try (PriorityEnv env = PriorityEnv.open()) {
            for (int round = 0; round < 20; round++) {
                boolean on = round % 2 == 0;
                List<Thread> setters = new java.util.ArrayList<>();
                java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                        new java.util.concurrent.atomic.AtomicReference<>();
                for (int t = 0; t < 4; t++) {
                    Thread th = new Thread(() -> {
                        try {
                            for (int i = 0; i < 2000; i++) {
                                boolean set = i % 2 == 0;
                                env.setClassLimit(IoClass.USER_GET, set ? 1000 : 0, 0);
                                env.setClassLimit(IoClass.FLUSH, 0, set ? 1e6 : 0);
                            }
                            env.setClassLimit(IoClass.USER_GET, on ? 1000 : 0, 0);
                            env.setClassLimit(IoClass.FLUSH, 0, on ? 1e6 : 0);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    });
                    th.start();
                    setters.add(th);
                }
                for (Thread th : setters) {
                    th.join(60_000);
                    assertThat(th.isAlive()).isFalse();
                }
                assertThat(failure.get()).isNull();
                assertThat(env.activeClassCaps())
                        .as("active caps after round %d", round)
                        .isEqualTo(on ? 2 : 0);
            }
            env.setClassLimit(IoClass.USER_GET, 0.01, 0);
            assertThat(env.activeClassCaps()).isEqualTo(1);
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Ops and bytes completed in a window of {@code secs} seconds. */
    private record Rate(long ops, long bytes, double secs) {}

    private interface LoadFactory {
        SyntheticLoad create();
    }

    private static Rate measure(PriorityEnv env, IoClass c, LoadFactory f) throws Exception {
        IoDetail before;
        long t0;
        IoDetail after;
        long t1;
        try (SyntheticLoad load = f.create().start()) {
            SyntheticLoad.run(Duration.ofMillis(300)); // warm-up: spend the burst allowance
            before = env.ioDetail();
            t0 = System.nanoTime();
            SyntheticLoad.run(WINDOW);
            after = env.ioDetail();
            t1 = System.nanoTime();
        }
        IoClassDetail d = after.get(c).minus(before.get(c));
        return new Rate(d.ops(), d.bytes(), (t1 - t0) / 1e9);
    }
}
