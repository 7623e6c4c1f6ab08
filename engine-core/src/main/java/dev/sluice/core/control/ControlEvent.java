package dev.sluice.core.control;

import java.time.Instant;

/**
 * A record of one decision: what was asked, by which controller, why, and what happened. Kept in a bounded ring buffer,
 * counted in metrics, optionally written as JSON lines.
 */
public record ControlEvent(
        Instant time,
        long tickerNanos,
        String controller,
        String partition,
        String knob,
        String action,
        String reason,
        Outcome outcome,
        String detail) {
    public enum Outcome {
        /** The actuator accepted the change. */
        APPLIED,
        /** Another controller earlier in the list set the same knob in the same tick. */
        SUPERSEDED,
        /** The actuator refused; {@code detail} says why. */
        FAILED
    }
}
