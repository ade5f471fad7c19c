package tierlab.spark;

import tierlab.experiments.run.ExperimentLoader;
import tierlab.experiments.run.SweepExecutorProvider;

/** {@code tierlab run FILE --executor spark}: found by the command line through {@link java.util.ServiceLoader}. */
public final class SparkSweepExecutorProvider implements SweepExecutorProvider {

    @Override
    public String name() {
        return "spark";
    }

    @Override
    public Remote open(ExperimentLoader.Experiment experiment, String master) {
        return SparkSweepExecutor.start(experiment, master);
    }
}
