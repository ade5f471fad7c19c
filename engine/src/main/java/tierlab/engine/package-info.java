/**
 * The live side of tierlab: real I/O for the model's {@link tierlab.model.io.StoragePort}.
 *
 * <ul>
 *   <li>{@link tierlab.engine.IoUringBackend}: the io_uring engine (one event-loop thread per ring,
 *       one io_uring_enter per batch per ring, READ_FIXED/WRITE_FIXED into the registered arena,
 *       O_DIRECT, splitting, short-transfer resubmission, errno names);</li>
 *   <li>{@link tierlab.engine.FileChannelBackend}: the same port on positional FileChannel I/O,
 *       the fallback and the comparison baseline;</li>
 *   <li>{@link tierlab.engine.PinnedArena}: the L1 pool's memory, 4096-aligned and mlocked when allowed;</li>
 *   <li>{@code tierlab.engine.uring}: the raw FFM binding (syscalls, struct offsets, one ring, the probe).</li>
 * </ul>
 *
 * Failures of single operations are values (an {@code IoCompletion} with the errno name, the sentence
 * in {@code recentFailures()}); exceptions are for setup (opening files, creating rings) and misuse.
 * The live runtime and L2 index persistence are not built yet.
 */
package tierlab.engine;
