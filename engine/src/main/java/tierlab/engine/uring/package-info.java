/**
 * The raw io_uring binding over Java's FFM API: the three system calls through libc's
 * {@code syscall}, the kernel structs as named offsets citing {@code linux/io_uring.h}, one ring
 * ({@link tierlab.engine.uring.IoUring}) with acquire/release ordering on its heads and tails, and
 * the availability probe. No JNI, no liburing.
 */
package tierlab.engine.uring;
