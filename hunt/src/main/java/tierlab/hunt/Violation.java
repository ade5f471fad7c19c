package tierlab.hunt;

/** The first thing a run found wrong: which check, at which step (-1: during the final drain), and what. */
public record Violation(Check check, int stepIndex, String message) {
    @Override
    public String toString() {
        return check + " at " + (stepIndex < 0 ? "final drain" : "step " + stepIndex) + ": " + message;
    }
}
