package tierlab.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentLoader;
import tierlab.experiments.run.PortableRuns;
import tierlab.experiments.run.RunPoint;
import tierlab.experiments.run.RunResult;
import tierlab.experiments.run.SweepExecutorProvider;

/**
 * Runs a sweep on Apache Spark: one task per sweep point, each carrying its point's complete
 * configuration ({@link PortableRuns.PortablePoint}); the input files (traces, device profiles) go
 * to every executor once through {@link SparkContext#addFile}. Results come back to the driver as
 * each task finishes, which reports progress and hands them to the command line in grid order, so
 * the tables are written here exactly as a local run writes them.
 *
 * <p>A run that fails is a result with a failure, as locally, so it costs its own row only; a task
 * lost with its executor is run again by Spark (up to {@code spark.task.maxFailures} times, 4 on a
 * cluster). The master comes from {@code --master}, else from {@code spark-submit} (the
 * {@code spark.master} property), else {@code local[*]}.
 */
final class SparkSweepExecutor implements SweepExecutorProvider.Remote {

    /** Asked by the driver when the workers must fetch tierlab's jars (a cluster that lacks them): a path list. */
    static final String JARS_PROPERTY = "tierlab.spark.jars";

    private final ExperimentLoader.Experiment experiment;
    private final JavaSparkContext context;
    private final Path staging;

    private SparkSweepExecutor(ExperimentLoader.Experiment experiment, JavaSparkContext context, Path staging) {
        this.experiment = experiment;
        this.context = context;
        this.staging = staging;
    }

    static SparkSweepExecutor start(ExperimentLoader.Experiment experiment, String master) {
        SparkConf conf = new SparkConf().setAppName("tierlab " + experiment.name());
        if (master != null) {
            conf.setMaster(master);
        } else if (!conf.contains("spark.master")) {
            conf.setMaster("local[*]");
        }
        // The web UI costs a second of start-up and a port; whoever wants it sets spark.ui.enabled=true.
        conf.setIfMissing("spark.ui.enabled", "false");
        String jars = System.getProperty(JARS_PROPERTY);
        // Local masters run the tasks in this JVM, which has the classes already; a cluster's executors fetch them.
        if (jars != null && !jars.isBlank() && !conf.get("spark.master").startsWith("local")) {
            conf.setJars(Arrays.stream(jars.split(java.io.File.pathSeparator)).filter(s -> !s.isBlank()).toArray(String[]::new));
        }
        String unreachable = MasterProbe.unreachable(conf.get("spark.master"));
        if (unreachable != null) {
            throw new CommandException("--executor spark: " + unreachable);
        }
        JavaSparkContext context;
        try {
            context = new JavaSparkContext(conf);
        } catch (RuntimeException e) {
            throw new CommandException("--executor spark: Spark did not start with master " + conf.get("spark.master")
                    + ": " + CommandException.withRootCause(e), e);
        }
        context.setLogLevel("WARN");
        try {
            return new SparkSweepExecutor(experiment, context, Files.createTempDirectory("tierlab-spark-inputs"));
        } catch (IOException e) {
            context.stop();
            throw new UncheckedIOException("cannot make the folder the Spark inputs are staged in", e);
        }
    }

    @Override
    public List<RunResult> run(List<RunPoint> points, Function<RunPoint, RunResult> task, Progress progress) {
        if (!points.equals(experiment.points())) {
            throw new IllegalArgumentException("the Spark executor runs the points of the experiment it was opened for");
        }
        PortableRuns.Plan plan = PortableRuns.plan(experiment);
        distribute(plan.inputs());
        RunResult[] results = new RunResult[points.size()];
        if (points.isEmpty()) {
            return List.of();
        }
        // One partition per point: each task carries exactly one point's configuration.
        JavaRDD<PortableRuns.PortablePoint> rdd = context.parallelize(plan.points(), plan.points().size());
        ClassTag<PortableRuns.PortableResult> tag = ClassTag$.MODULE$.apply(PortableRuns.PortableResult.class);
        try {
            context.sc().runJob(rdd.rdd(), new PointTask(), new AbstractFunction2<Object, PortableRuns.PortableResult, BoxedUnit>() {
                // On the driver, as each task's result arrives (one thread: Spark's scheduler loop).
                @Override
                public BoxedUnit apply(Object partition, PortableRuns.PortableResult portable) {
                    RunPoint point = points.get((Integer) partition);
                    RunResult result = portable.toResult(point);
                    results[point.index()] = result;
                    progress.finished(point, result);
                    return BoxedUnit.UNIT;
                }
            }, tag);
        } catch (RuntimeException e) {
            throw new CommandException("--executor spark: the sweep stopped: " + CommandException.withRootCause(e), e);
        }
        return List.of(results);
    }

    /** Every input file to every executor, once, under the name the points use for it. */
    private void distribute(Map<String, Path> inputs) {
        inputs.forEach((name, file) -> {
            Path staged = staging.resolve(name);
            try {
                // A copy under the distributed name: two inputs may share a file name in two folders.
                Files.copy(file, staged, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot stage " + file + " for the Spark executors", e);
            }
            context.sc().addFile(staged.toString());
        });
    }

    @Override
    public String description() {
        return "spark " + context.master();
    }

    @Override
    public int parallelism() {
        return context.defaultParallelism();
    }

    @Override
    public void close() {
        try {
            context.stop();
        } finally {
            try (Stream<Path> files = Files.walk(staging)) {
                List<Path> all = new ArrayList<>(files.toList());
                all.sort(Comparator.reverseOrder());
                for (Path path : all) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException ignored) {
                // A temporary folder the OS clears; nothing of the results depends on it.
            }
        }
    }
}
