package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/**
 * This module's tests run without the spark module on the class path, as the command line does
 * unless asked: {@code --executor spark} then says in one line how to get it, before any run.
 */
class SparkExecutorAbsentTest {

    @TempDir
    Path folder;

    @Test
    void sparkWithoutTheModuleIsOneLineThatSaysHowToGetIt() {
        Path out = folder.resolve("out");
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", Path.of("catalog", "quickstart.yaml").toString(),
                "--out", out.toString(), "--executor", "spark", "--master", "local[2]");
        assertEquals(1, run.exitCode(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("tierlab-spark") && run.err().contains("docs/spark.md"), run.err());
        assertFalse(out.toFile().exists(), "nothing is written");
    }

    @Test
    void anUnknownExecutorIsABadCommandLine() {
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", Path.of("catalog", "quickstart.yaml").toString(),
                "--out", folder.resolve("out").toString(), "--executor", "yarn");
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains("unknown executor 'yarn' (known: local, spark)"), run.err());
    }
}
