/**
 * The {@code tierlab} command line: experiment files, sweeps, metrics, charts and reports.
 * Built by the experiments issue; until then this module only reserves its place in the reactor.
 */
package tierlab.experiments;
