package tierlab.experiments.run;

import java.util.List;
import java.util.function.Function;

/**
 * Runs the points of a sweep and returns their results in grid order, whatever order they ran in.
 * The local executor runs them on this machine's cores; a cluster backend would implement the same
 * interface (each point is self-contained: its configuration and seed are all a run needs).
 */
public interface SweepExecutor {

    /** Told of each finished point, from whichever thread ran it. */
    interface Progress {
        void finished(RunPoint point, RunResult result);
    }

    List<RunResult> run(List<RunPoint> points, Function<RunPoint, RunResult> task, Progress progress);
}
