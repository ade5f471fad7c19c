package tierlab.workload;

/**
 * One request of a request trace in any supported format (see {@link TraceFormats}), after its
 * reader mapped the format's own fields to these.
 *
 * @param lineNumber   the 1-based line (a text trace) or record (a binary one) it was read from, so that
 *                     later stages can name what they refuse
 * @param arrivalNs    arrival time in nanoseconds from the start of the trace
 * @param inputTokens  prompt length in tokens
 * @param outputTokens generated length in tokens
 * @param hashIds      one id per trace block of the prompt (the trace's own block size), in prompt
 *                     order; equal ids at the same position mean an equal prefix up to that block.
 *                     Shared, not copied.
 */
public record TraceRequest(long lineNumber, long arrivalNs, long inputTokens, long outputTokens, long[] hashIds) {
}
