/**
 * The {@code tierlab} command line's entry point. It names every subcommand (experiments, replay,
 * benchmarks, the hunt) and nothing names it, so it sits above the packages it composes.
 */
package tierlab.experiments.cli;
