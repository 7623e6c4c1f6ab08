package dev.sluice.core.spi;

import dev.sluice.core.sensor.IoClass;

/**
 * Run-time parameters of the priority Env's scheduler, set by controllers through {@link
 * dev.sluice.core.control.Action.ConfigureIo}. Thread-safety: may be called from any thread; changes take effect for the
 * next I/O.
 */
public interface IoControl {
    /**
     * Caps one class at {@code opsPerSecond} operations and {@code bytesPerSecond} bytes per second; a value ≤ 0 or
     * infinite removes that cap.
     */
    void setClassLimit(IoClass ioClass, double opsPerSecond, double bytesPerSecond);
}
