package dev.sluice.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP connection whose request is not answered within a deadline counted from its first byte. The read
 * timeout ({@link io.netty.handler.timeout.ReadTimeoutHandler}) alone let a client hold a connection for hours by
 * sending one header line every few seconds, and 256 such connections locked /metrics, /status and the dashboard out
 * for as long as they trickled (slowloris; hostile-client probe, 2026-11-28). Sits before the HTTP codec: the first
 * bytes read while no request is open arm the timer; the response's first write disarms it (this server writes only
 * responses), and the next request's first bytes arm it again. Event-loop only.
 */
final class RequestDeadline extends ChannelDuplexHandler {
    private final long nanos;
    private ScheduledFuture<?> timer;

    RequestDeadline(long amount, TimeUnit unit) {
        this.nanos = unit.toNanos(amount);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (timer == null) {
            timer = ctx.executor().schedule(() -> ctx.close(), nanos, TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        disarm();
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
