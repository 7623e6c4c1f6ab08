package dev.sluice.core;

/** A configuration value or key is wrong. The message names the key, the value given and what is allowed. */
public class ConfigException extends SluiceException {
    public ConfigException(String message) {
        super(message);
    }
}
