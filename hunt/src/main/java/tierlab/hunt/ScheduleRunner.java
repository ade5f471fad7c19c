package tierlab.hunt;

import java.util.List;
import tierlab.model.io.PayloadLedger;
import tierlab.model.trace.DecisionTrace;

/**
 * What both levels' runners share: apply every step of the schedule with the level's checks after
 * each, drain to quiescence with the final checks, and turn the first violation into a result.
 * The levels differ in their steps, their checks and the figures they count.
 */
abstract class ScheduleRunner {
    final Schedule schedule;
    final DecisionTrace trace;
    final PayloadLedger ledger;
    /** The step being applied; -1 during the final drain. */
    int stepIndex;

    ScheduleRunner(Schedule schedule, int keepTraceEvents) {
        this.schedule = schedule;
        this.trace = new DecisionTrace(keepTraceEvents, null);
        this.ledger = new PayloadLedger(schedule.config().laneBytes(), schedule.config().tp());
    }

    /** Applies one step; false when it did nothing (its target did not exist). */
    abstract boolean apply(Step step);

    /** The checks after every step. */
    abstract void afterStep();

    /** Completes everything still pending and runs the final checks; returns the drain's steps. */
    abstract int drainAndVerify();

    abstract int outdatedAcquires();

    abstract long enginePreemptions();

    /** A failure other than a {@link HuntFailure}: an invariant check of the model threw. */
    Violation violationOf(RuntimeException error) {
        return new Violation(Check.ofInvariantMessage(error.getMessage()), stepIndex, String.valueOf(error));
    }

    final ScheduleResult run() {
        int applied = 0;
        int drainSteps = 0;
        Violation violation = null;
        List<Step> steps = schedule.steps();
        try {
            for (stepIndex = 0; stepIndex < steps.size(); stepIndex++) {
                if (apply(steps.get(stepIndex))) {
                    applied++;
                }
                afterStep();
            }
            stepIndex = -1;
            drainSteps = drainAndVerify();
        } catch (HuntFailure failure) {
            violation = new Violation(failure.check, stepIndex, failure.getMessage());
        } catch (RuntimeException error) {
            violation = violationOf(error);
        }
        return new ScheduleResult(violation, trace.hash(), applied, drainSteps, ledger.loadMatches(), outdatedAcquires(),
                enginePreemptions());
    }
}
