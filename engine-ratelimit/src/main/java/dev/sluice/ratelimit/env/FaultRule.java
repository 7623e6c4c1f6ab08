package dev.sluice.ratelimit.env;

import dev.sluice.core.sensor.IoClass;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One fault-injection rule of {@link FaultInjector}: which I/Os it matches (classes × file kinds × operations), when it
 * starts ({@code afterOps} matching operations pass first), how often it fires ({@code maxFaults}, {@code probability})
 * and what it does (fail with EIO, fail with a retryable EIO, or delay).
 *
 * <p>Rules are checked in the order they were added; the first that fires decides. A failed operation does not reach
 * the file system (a failed write writes nothing).
 */
public record FaultRule(
        Set<IoClass> classes,
        Set<FileKind> fileKinds,
        Set<Op> ops,
        long afterOps,
        long maxFaults,
        double probability,
        Action action,
        Duration delay) {

    /** Files by name: WAL ({@code *.log}), SST, blob, MANIFEST, and every other file (CURRENT, OPTIONS, IDENTITY...). */
    public enum FileKind {
        WAL,
        SST,
        BLOB,
        MANIFEST,
        OTHER
    }

    /** Operations: data reads, data writes (append, positioned append), syncs (sync/fsync/range-sync), buffer flushes. */
    public enum Op {
        READ,
        WRITE,
        SYNC,
        FLUSH
    }

    public enum Action {
        /** {@code IOStatus::IOError} — what a failing disk returns (EIO). */
        EIO,
        /** The same error marked retryable: RocksDB may recover from it on its own (auto-resume). */
        EIO_RETRYABLE,
        /** Sleep for {@code delay}, then perform the operation. */
        DELAY
    }

    public FaultRule {
        classes = Collections.unmodifiableSet(copy(classes, IoClass.class, "classes"));
        fileKinds = Collections.unmodifiableSet(copy(fileKinds, FileKind.class, "fileKinds"));
        ops = Collections.unmodifiableSet(copy(ops, Op.class, "ops"));
        if (afterOps < 0) {
            throw new IllegalArgumentException("afterOps must be ≥ 0, got " + afterOps);
        }
        if (maxFaults < -1 || maxFaults == 0) {
            throw new IllegalArgumentException("maxFaults must be ≥ 1, or -1 for unlimited, got " + maxFaults);
        }
        if (!(probability > 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability must be in (0, 1], got " + probability);
        }
        if (action == null) {
            throw new IllegalArgumentException("action must not be null");
        }
        if (delay == null || delay.isNegative() || (action == Action.DELAY && delay.isZero())) {
            throw new IllegalArgumentException("delay must be ≥ 0 (and > 0 for DELAY), got " + delay);
        }
    }

    /** A rule failing every matching write with EIO, from now on, without limit. Refine with the {@code with*} methods. */
    public static FaultRule eio(Set<IoClass> classes, Set<Op> ops) {
        return new FaultRule(classes, EnumSet.allOf(FileKind.class), ops, 0, -1, 1.0, Action.EIO, Duration.ZERO);
    }

    public static FaultRule delay(Set<IoClass> classes, Set<Op> ops, Duration delay) {
        return new FaultRule(classes, EnumSet.allOf(FileKind.class), ops, 0, -1, 1.0, Action.DELAY, delay);
    }

    public FaultRule withFileKinds(Set<FileKind> kinds) {
        return new FaultRule(classes, kinds, ops, afterOps, maxFaults, probability, action, delay);
    }

    public FaultRule afterOps(long n) {
        return new FaultRule(classes, fileKinds, ops, n, maxFaults, probability, action, delay);
    }

    public FaultRule maxFaults(long n) {
        return new FaultRule(classes, fileKinds, ops, afterOps, n, probability, action, delay);
    }

    public FaultRule withProbability(double p) {
        return new FaultRule(classes, fileKinds, ops, afterOps, maxFaults, p, action, delay);
    }

    public FaultRule retryable() {
        if (action != Action.EIO) {
            throw new IllegalStateException("only an EIO rule can be made retryable");
        }
        return new FaultRule(classes, fileKinds, ops, afterOps, maxFaults, probability, Action.EIO_RETRYABLE, delay);
    }

    int classMask() {
        int m = 0;
        for (IoClass c : classes) {
            m |= 1 << c.ordinal();
        }
        return m;
    }

    int fileKindMask() {
        int m = 0;
        for (FileKind k : fileKinds) {
            m |= 1 << k.ordinal();
        }
        return m;
    }

    int opMask() {
        int m = 0;
        for (Op o : ops) {
            m |= 1 << o.ordinal();
        }
        return m;
    }

    private static <E extends Enum<E>> EnumSet<E> copy(Set<E> in, Class<E> type, String field) {
        if (in == null || in.isEmpty()) {
            throw new IllegalArgumentException(field + " must name at least one " + type.getSimpleName());
        }
        return EnumSet.copyOf(in);
    }
}
