package tierlab.hunt;

/** Thrown inside a runner to stop at the first violated check; the runner turns it into a {@link Violation}. */
final class HuntFailure extends RuntimeException {
    final Check check;

    HuntFailure(Check check, String message) {
        super(message, null, false, false);
        this.check = check;
    }
}
