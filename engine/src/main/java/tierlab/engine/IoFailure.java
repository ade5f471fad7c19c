package tierlab.engine;

/**
 * Why one operation failed, in words. The model's {@code IoCompletion} carries only the errno
 * name (that is all the model decides on); backends keep the sentence here, in
 * {@code recentFailures()}, for logs, reports and tests.
 *
 * @param ticket    the operation's ticket
 * @param errorName the name in the completion (EINVAL, EIO, ESHORT, ECLOSED, ...)
 * @param message   what was attempted and what happened, e.g.
 *                  "l2Offset 4097 is not a multiple of 4096 (O_DIRECT); rejected before any I/O"
 */
public record IoFailure(long ticket, String errorName, String message) {}
