package dev.sluice.core;

/**
 * Per-call durability. {@link #SYNC}: the WAL is fsynced before the call returns — the write survives a crash of the
 * process or the machine. {@link #ASYNC}: written to the WAL in the OS page cache — survives a process crash (kill -9)
 * but not a power loss. {@link #DEFAULT} uses the node's {@code writes.sync} setting.
 */
public enum WriteMode {
    DEFAULT,
    SYNC,
    ASYNC
}
