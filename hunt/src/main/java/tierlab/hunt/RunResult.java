package tierlab.hunt;

/**
 * The outcome of one schedule: the first violation (null when every check held), the decision
 * trace hash (I11), how many steps applied (others were no-ops at that moment) and how many
 * operations the final drain completed.
 */
public record RunResult(Violation violation, long traceHash, int stepsApplied, int drainSteps, long loadsVerified) {
    public boolean passed() {
        return violation == null;
    }
}
