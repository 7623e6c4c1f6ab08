/**
 * Scenario files: the line-based format ({@link dev.sluice.bench.scenario.ScenarioParser}), the parsed model (preload,
 * phases, device, stacks) and lookup of shipped scenarios. Pure: no engine is opened here.
 */
package dev.sluice.bench.scenario;
