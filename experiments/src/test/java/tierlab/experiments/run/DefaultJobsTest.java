package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Live runs measure the host, so by default they run one at a time; simulations take every core. */
class DefaultJobsTest {

    @Test
    void liveCatalogueFilesRunOneAtATime() {
        for (String name : new String[] {"live-throughput.yaml", "live-cuda.yaml"}) {
            ExperimentLoader.Experiment experiment = ExperimentLoader.load(Path.of("catalog", name));
            assertEquals(1, RunCommand.defaultJobs(experiment), name);
        }
    }

    @Test
    void simulationsTakeEveryCore() {
        ExperimentLoader.Experiment experiment = ExperimentLoader.load(Path.of("catalog", "quickstart.yaml"));
        assertEquals(Runtime.getRuntime().availableProcessors(), RunCommand.defaultJobs(experiment));
    }
}
