/**
 * The node server (docs/architecture.md §3.8): Netty RESP2 data port (tenants = partitions) and HTTP (Prometheus metrics, status
 * JSON, live dashboard), bound to 127.0.0.1 by default. Not built yet.
 *
 * <p>May depend on every engine module; nothing depends on it.
 */
package dev.sluice.server;
