package tierlab.hunt;

/**
 * A failing schedule found by a hunt: the QuickTheories seed that generated it, the schedule as
 * generated and as shrunk, the violation of the shrunk schedule, and what it took to find it.
 *
 * @param detectionMillis wall time from the start of the hunt to the first failing schedule
 * @param schedulesTried  schedules run before the first failure (including it)
 */
public record Finding(String target, long seed, Schedule original, Schedule shrunk, Violation violation,
                      long detectionMillis, int schedulesTried, long stepsTried) {}
