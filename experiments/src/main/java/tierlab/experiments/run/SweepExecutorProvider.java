package tierlab.experiments.run;

/**
 * A sweep executor that lives in another module and is found at run time ({@link java.util.ServiceLoader}),
 * so that the command line does not carry its libraries unless they are on the class path:
 * {@code tierlab run FILE --executor NAME}. The Spark executor (module {@code spark/}) is one.
 *
 * <p>Such an executor runs points away from this JVM, so it cannot call the {@code task} function
 * {@link SweepExecutor#run} is given; it ships each point as a {@link PortableRuns.PortablePoint}
 * instead, runs it with a {@link RunExecutor} where it lands, and brings back a
 * {@link PortableRuns.PortableResult}: the same code runs the same resolved configuration, so the
 * results are the local executor's, bit for bit.
 */
public interface SweepExecutorProvider {

    /** The {@code --executor} value that picks this provider ({@code spark}). */
    String name();

    /**
     * Starts the executor for one experiment (for Spark: the driver's context).
     *
     * @param master where the points run, in the provider's terms (Spark: {@code local[N]} or
     *               {@code spark://HOST:PORT}); null for the provider's default
     */
    Remote open(ExperimentLoader.Experiment experiment, String master);

    /** An open executor: closing it releases what {@link #open} started. */
    interface Remote extends SweepExecutor, AutoCloseable {

        /** How run.json names it ({@code spark local[2]}). */
        String description();

        /** Task slots it runs points in at once, for run.json's {@code threads}. */
        int parallelism();

        @Override
        void close();
    }
}
