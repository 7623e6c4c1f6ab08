package dev.sluice.ratelimit.env;

/**
 * Run-time fault injection into a {@link PriorityEnv}'s I/O path, for reliability tests: EIO or delays per class, file
 * kind and operation, after N operations, with a probability. Obtained from {@link PriorityEnv#faults()}.
 *
 * <p>Error messages read {@code "sluice fault injection (rule N): injected EIO on WAL write of /path/000004.log"}, so a
 * test (or an operator) can tell an injected failure from a real one. While no rule exists the check costs one relaxed
 * atomic load per I/O; while rules exist every I/O takes a short native lock.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class FaultInjector {
    private final PriorityEnv env;

    FaultInjector(PriorityEnv env) {
        this.env = env;
    }

    /** Installs a rule and returns its id. */
    public int inject(FaultRule rule) {
        return env.withState(s -> NativeBridge.addFault(
                s,
                rule.classMask(),
                rule.fileKindMask(),
                rule.opMask(),
                rule.afterOps(),
                rule.maxFaults(),
                rule.probability(),
                rule.action().ordinal(),
                rule.delay().toNanos()));
    }

    /** Removes a rule; false when no rule has that id. */
    public boolean remove(int id) {
        return env.withState(s -> NativeBridge.removeFault(s, id));
    }

    /** Removes every rule: I/O behaves normally again from the next operation on. */
    public void clear() {
        env.withState(s -> {
            NativeBridge.clearFaults(s);
            return null;
        });
    }

    /** How many times the rule fired; -1 when no rule has that id. */
    public long hits(int id) {
        return env.withState(s -> NativeBridge.faultHits(s, id));
    }
}
