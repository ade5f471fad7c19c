/**
 * {@code ./tierlab bench engine}: the io_uring engine against fio on the same O_DIRECT file.
 *
 * <ul>
 *   <li>{@link tierlab.engine.bench.EngineVsFio}: the plain main; interleaves engine and fio runs
 *       per case, prints and writes the table (medians and per-round ratios);</li>
 *   <li>{@link tierlab.engine.bench.ClosedLoopRunner}: keeps a queue depth in flight on any
 *       {@link tierlab.model.io.StoragePort} (io_uring or FileChannel) for a fixed time;</li>
 *   <li>{@link tierlab.engine.bench.Fio} and {@link tierlab.engine.bench.FioResult}: the matching
 *       fio job and its JSON report;</li>
 *   <li>{@link tierlab.engine.bench.SubmissionBatchingProbe}: io_uring_enter calls per read,
 *       batched against unbatched submission.</li>
 * </ul>
 */
package tierlab.engine.bench;
