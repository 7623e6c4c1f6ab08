package dev.sluice.core;

/** What a request does, as admission and quotas see it. A batch is a WRITE; a multiGet is a READ. */
public enum RequestKind {
    READ,
    WRITE,
    SCAN
}
