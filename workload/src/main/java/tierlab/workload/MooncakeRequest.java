package tierlab.workload;

/**
 * One request of a Mooncake trace (kvcache-ai/Mooncake, FAST25-release/traces).
 *
 * @param lineNumber   the 1-based line of the trace file it was read from, so that later stages
 *                     (re-blocking into a workload) can name the line of a request they refuse
 * @param timestampMs  arrival time in milliseconds from the start of the trace
 * @param inputTokens  prompt length in tokens
 * @param outputTokens generated length in tokens
 * @param hashIds      one id per 512-token block of the prompt, in prompt order; equal ids at the
 *                     same position mean an equal prefix up to that block. Shared, not copied.
 */
public record MooncakeRequest(long lineNumber, long timestampMs, long inputTokens, long outputTokens, long[] hashIds) {
}
