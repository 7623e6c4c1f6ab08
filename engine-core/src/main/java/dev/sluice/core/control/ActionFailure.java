package dev.sluice.core.control;

/** An actuator could not apply an action; the message says which knob and why. Recorded as a FAILED event. */
public class ActionFailure extends RuntimeException {
    public ActionFailure(String message) {
        super(message);
    }
}
