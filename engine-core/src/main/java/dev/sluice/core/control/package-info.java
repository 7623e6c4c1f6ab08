/**
 * The control plane (docs/architecture.md §2): pure {@link dev.sluice.core.control.ControlLoop controllers} turn snapshots into
 * {@link dev.sluice.core.control.Action actions}; the {@link dev.sluice.core.control.ControlPlane} applies them through
 * {@link dev.sluice.core.control.Actuators} and records each as a {@link dev.sluice.core.control.ControlEvent}. Controllers
 * are discovered by name with {@link dev.sluice.core.control.ControlLoopProvider} through {@link java.util.ServiceLoader}.
 */
package dev.sluice.core.control;
