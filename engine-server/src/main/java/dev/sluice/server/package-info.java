/**
 * The node server (docs/architecture.md §3.8; README section Server): {@link dev.sluice.server.SluiceServer} puts a
 * {@link dev.sluice.core.SluiceNode} behind a Netty RESP2 port (tenants authenticate with AUTH and are mapped to
 * partitions; every data command uses the partitions' async API) and an HTTP port (Prometheus {@code /metrics}, {@code
 * /status} JSON, the live dashboard served from the jar's {@code dashboard/} resources), both on 127.0.0.1 by default.
 * {@link dev.sluice.server.ServerMain} is {@code ./sluice serve}; {@link dev.sluice.server.ServerConfig} reads the
 * node's properties file plus the {@code server.*} keys.
 *
 * <p>Inside: {@code RespDecoder} (frames and limits) → {@code RespHandler} (one per connection: per-key order via
 * {@code KeyOrder}, replies in request order, back-pressure) → {@code Commands}; {@code StatusSampler} keeps the
 * per-second history; {@code HttpHandler} serves it. Public API: SluiceServer, ServerConfig, ServerMain.
 *
 * <p>May depend on every engine module; nothing depends on it.
 */
package dev.sluice.server;
