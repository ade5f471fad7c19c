package tierlab.hunt;

/**
 * The outcome of one schedule: the first violation (null when every check held), the decision
 * trace hash (I11), how many steps applied (others were no-ops at that moment), how many
 * operations the final drain completed and how many loads the ledger verified byte-identity for.
 *
 * @param outdatedAcquires store level: acquires made from a lookup whose keys had meanwhile left
 *                         the index at the looked-up slots (the R1 family of interleavings)
 * @param enginePreemptions engine level: recompute preemptions, the scheduler's own and the schedule's
 */
public record ScheduleResult(Violation violation, long traceHash, int stepsApplied, int drainSteps, long loadsVerified,
                        int outdatedAcquires, long enginePreemptions) {
    public boolean passed() {
        return violation == null;
    }
}
