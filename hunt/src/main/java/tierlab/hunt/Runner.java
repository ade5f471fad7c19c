package tierlab.hunt;

/** Runs a schedule at its level and returns the first violation, if any. Deterministic: no clock, no randomness. */
public final class Runner {
    private Runner() {}

    public static ScheduleResult run(Schedule schedule) {
        return run(schedule, 0);
    }

    /** @param keepTraceEvents how many recent decisions to keep for a failure report (0: none) */
    public static ScheduleResult run(Schedule schedule, int keepTraceEvents) {
        return runnerFor(schedule, keepTraceEvents).run();
    }

    /** The last decisions of a run, for a failure report. */
    public static java.util.List<String> recentDecisions(Schedule schedule, int keep) {
        ScheduleRunner runner = runnerFor(schedule, keep);
        runner.run();
        return runner.trace.recent();
    }

    private static ScheduleRunner runnerFor(Schedule schedule, int keepTraceEvents) {
        return switch (schedule.config().level()) {
            case STORE -> new StoreRunner(schedule, keepTraceEvents);
            case ENGINE -> new EngineRunner(schedule, keepTraceEvents);
        };
    }
}
