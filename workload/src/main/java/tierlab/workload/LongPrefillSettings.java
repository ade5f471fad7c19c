package tierlab.workload;

/**
 * The shape of the reference benchmarks (E1–E3 in docs/experiments.md): {@code prompts}
 * distinct long prompts, each sent once in a cold pass and again, in the same order, in a warm pass.
 *
 * @param name             a label for reports (the experiment's name for the presets)
 * @param prompts          prompts per pass
 * @param promptTokens     length of each prompt
 * @param pinTotalTokens   when set, the drawn lengths are nudged (by a token or a few each, never
 *                         below 1) until their sum is exactly round(prompts × mean): the prompts
 *                         still vary in length, but the pass's KV volume, which is what E1 is about,
 *                         is the reference's and not a sampling accident
 * @param outputTokens     tokens generated per request
 * @param arrivalSpacingNs gap between consecutive arrivals within a pass; 0 = all at once
 */
public record LongPrefillSettings(String name, int prompts, LengthDistribution promptTokens, boolean pinTotalTokens,
                                  long outputTokens, long arrivalSpacingNs) {

    public LongPrefillSettings {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be set");
        }
        if (prompts <= 0) {
            throw new IllegalArgumentException("prompts must be > 0, was " + prompts);
        }
        if (promptTokens == null) {
            throw new IllegalArgumentException("promptTokens must be set");
        }
        if (outputTokens <= 0) {
            throw new IllegalArgumentException("outputTokens must be > 0, was " + outputTokens);
        }
        if (arrivalSpacingNs < 0) {
            throw new IllegalArgumentException("arrivalSpacingNs must be >= 0 (0 = all at once), was " + arrivalSpacingNs);
        }
    }

    /** Every prompt exactly {@code promptTokens} long, all arriving at once. */
    public static LongPrefillSettings fixed(String name, int prompts, long promptTokens, long outputTokens) {
        return new LongPrefillSettings(name, prompts, LengthDistribution.fixed(promptTokens), false, outputTokens, 0);
    }

    public LongPrefillSettings withArrivalSpacingNs(long newArrivalSpacingNs) {
        return new LongPrefillSettings(name, prompts, promptTokens, pinTotalTokens, outputTokens, newArrivalSpacingNs);
    }
}
