/** summary.md, the console table, ratios to the baseline, and the XChart PNGs of a run. */
package dev.sluice.bench.report;
