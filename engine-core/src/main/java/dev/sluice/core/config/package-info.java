/**
 * Typed option descriptors: one {@link dev.sluice.core.config.Option} per configuration key (name, default, allowed
 * values, unit, doc) that parses, validates and renders its row of the configuration reference, and {@link
 * dev.sluice.core.config.OptionSet}, the options of one component (the node, a controller, the Env, a scenario
 * section). Depends on nothing but {@link dev.sluice.core.ConfigException}.
 */
package dev.sluice.core.config;
