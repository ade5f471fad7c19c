package tierlab.hunt;

import java.util.ArrayList;
import java.util.List;

/**
 * The last shrinking pass, after QuickTheories' own: removes steps one at a time (then pairs of
 * neighbours) as long as the schedule still fails with the same check. QuickTheories shrinks the
 * draws behind a schedule (its length, its indices, its step kinds); this pass removes steps from
 * the middle, which draw-level shrinking cannot do. Runs are deterministic, so the result fails
 * the same way on every replay.
 */
public final class Minimizer {
    private Minimizer() {}

    /** A schedule that fails with {@code check}, as short as greedy removal gets it. */
    public static Schedule minimize(Schedule failing, Check check, int maxRuns) {
        Schedule best = failing;
        int runs = 0;
        boolean progress = true;
        while (progress && runs < maxRuns) {
            progress = false;
            for (int width = 2; width >= 1 && runs < maxRuns; width--) {
                for (int i = best.length() - width; i >= 0 && runs < maxRuns; i--) {
                    List<Step> fewer = new ArrayList<>(best.steps());
                    fewer.subList(i, Math.min(i + width, fewer.size())).clear();
                    Schedule candidate = best.withSteps(fewer);
                    runs++;
                    ScheduleResult result = Runner.run(candidate);
                    if (!result.passed() && result.violation().check() == check) {
                        best = candidate;
                        progress = true;
                        i = Math.min(i, best.length() - width + 1);
                    }
                }
            }
        }
        return best;
    }
}
