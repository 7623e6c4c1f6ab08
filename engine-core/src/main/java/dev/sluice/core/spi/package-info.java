/**
 * Service-provider interfaces that other modules implement and core discovers with {@link java.util.ServiceLoader}:
 * admission gates (engine-ratelimit), the storage Env (engine-ratelimit's native priority Env), profiles.
 */
package dev.sluice.core.spi;
