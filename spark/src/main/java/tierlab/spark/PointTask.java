package tierlab.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.SparkFiles;
import scala.collection.Iterator;
import scala.runtime.AbstractFunction1;
import tierlab.experiments.run.PortableRuns;
import tierlab.experiments.run.RunExecutor;
import tierlab.experiments.run.RunPoint;

/**
 * What a Spark task does with its partition: the one point it carries, resolved where it landed and
 * run with the same {@link RunExecutor} the local executor uses. Shipped to the executors once per
 * task as part of the task's closure; it holds no state of its own.
 */
final class PointTask extends AbstractFunction1<Iterator<PortableRuns.PortablePoint>, PortableRuns.PortableResult>
        implements Serializable {

    private static final long serialVersionUID = 1L;

    @Override
    public PortableRuns.PortableResult apply(Iterator<PortableRuns.PortablePoint> partition) {
        PortableRuns.PortablePoint portable = partition.next();
        if (partition.hasNext()) {
            throw new IllegalStateException("a partition holds one sweep point, this one more than one");
        }
        // The input files arrived once per executor JVM (SparkContext.addFile) under their distributed names.
        RunPoint point = portable.resolve(Path.of(SparkFiles.getRootDirectory()));
        return PortableRuns.PortableResult.of(Worker.EXECUTOR.run(point));
    }

    /**
     * One {@link RunExecutor} per executor JVM, made on first use: it parses each trace once and
     * keeps it for every later point of the sweep that this JVM runs.
     */
    private static final class Worker {
        static final RunExecutor EXECUTOR = new RunExecutor(scratch());

        private static Path scratch() {
            try {
                // Sim runs (the only ones sent to Spark) never write here; the executor wants a folder all the same.
                return Files.createTempDirectory("tierlab-spark-scratch");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot make a scratch folder on this Spark executor", e);
            }
        }
    }
}
