/**
 * Measuring the real I/O path, kept out of the engine's and the simulator's {@code src/main} so that
 * those modules hold only what a run needs. {@code ./tierlab bench engine} is the io_uring engine
 * against fio on the same O_DIRECT file.
 *
 * <ul>
 *   <li>{@link tierlab.bench.EngineVsFio}: interleaves engine and fio runs per case, prints and
 *       writes the table (medians and per-round ratios); {@link tierlab.bench.EngineVsFioFlags}
 *       declares its flags (picocli), {@link tierlab.bench.EngineVsFioOptions} is what they ask for;</li>
 *   <li>{@link tierlab.bench.ClosedLoopRunner}: keeps a queue depth in flight on any
 *       {@link tierlab.model.io.StoragePort} (io_uring or FileChannel) for a fixed time;</li>
 *   <li>{@link tierlab.bench.Fio} and {@link tierlab.bench.FioResult}: the matching
 *       fio job and its JSON report;</li>
 *   <li>{@link tierlab.bench.SubmissionBatchingProbe}: io_uring_enter calls per read,
 *       batched against unbatched submission;</li>
 *   <li>{@link tierlab.bench.TestFile}: the file of random bytes that the benchmark and the
 *       calibration sweep ({@code tierlab.experiments.calibration}) read and write.</li>
 * </ul>
 */
package tierlab.bench;
