package tierlab.workload;

/**
 * What {@link SyntheticWorkload} generates.
 *
 * <p>Requests come in sessions of {@code sessions.turnsPerSession()} turns (1: every request is
 * its own session). Session starts follow {@code arrivals}; each later turn arrives a think time
 * after the previous one. A session's first prompt is a shared prefix chosen from the pool by
 * Zipf popularity (when the pool is not empty) followed by unique tokens, {@code promptTokens}
 * long in all; turn k's prompt is turn k-1's prompt, its answer ({@code outputTokens} of that turn)
 * and {@code sessions.newUserTokens()} new tokens, so every turn extends the previous turn's chain.
 *
 * @param requestCount   requests in all (the last session may be cut short to make the count)
 * @param arrivals       when sessions (with single-turn sessions: requests) start
 * @param promptTokens   length of a session's first prompt, shared prefix included
 * @param outputTokens   tokens generated per request
 * @param sharedPrefixes the prefix pool; {@link SharedPrefixes#NONE} (or absent) for none
 * @param sessions       multi-turn structure; {@link Sessions#SINGLE_TURN} (or absent) for none
 */
public record SyntheticSettings(int requestCount, ArrivalProcess arrivals, LengthDistribution promptTokens,
                                LengthDistribution outputTokens, SharedPrefixes sharedPrefixes, Sessions sessions) {

    public SyntheticSettings {
        if (requestCount <= 0) {
            throw new IllegalArgumentException("requestCount must be > 0, was " + requestCount);
        }
        required("arrivals", arrivals);
        required("promptTokens", promptTokens);
        required("outputTokens", outputTokens);
        sharedPrefixes = sharedPrefixes == null ? SharedPrefixes.NONE : sharedPrefixes;
        sessions = sessions == null ? Sessions.SINGLE_TURN : sessions;
        if (sharedPrefixes.enabled() && promptTokens.minTokens() <= sharedPrefixes.prefixTokens()) {
            throw new IllegalArgumentException("promptTokens: every first prompt must be longer than"
                    + " sharedPrefixes.prefixTokens (" + sharedPrefixes.prefixTokens()
                    + ") to leave room for its unique suffix, but the shortest is " + promptTokens.minTokens());
        }
    }

    /** Single-turn requests without shared prefixes: the simplest open-loop workload. */
    public static SyntheticSettings independent(int requestCount, ArrivalProcess arrivals,
                                                LengthDistribution promptTokens, LengthDistribution outputTokens) {
        return new SyntheticSettings(requestCount, arrivals, promptTokens, outputTokens, SharedPrefixes.NONE,
                Sessions.SINGLE_TURN);
    }

    public SyntheticSettings withSharedPrefixes(SharedPrefixes newSharedPrefixes) {
        return new SyntheticSettings(requestCount, arrivals, promptTokens, outputTokens, newSharedPrefixes, sessions);
    }

    public SyntheticSettings withSessions(Sessions newSessions) {
        return new SyntheticSettings(requestCount, arrivals, promptTokens, outputTokens, sharedPrefixes, newSessions);
    }

    /**
     * A pool of {@code poolSize} distinct prefixes (system prompts, shared documents) of
     * {@code prefixTokens} tokens each; a session picks prefix of rank r (1 = most popular) with
     * probability ∝ 1/r^{@code zipfExponent}.
     */
    public record SharedPrefixes(int poolSize, double zipfExponent, long prefixTokens) {

        /** No shared prefixes: every first prompt is unique from its first token. */
        public static final SharedPrefixes NONE = new SharedPrefixes(0, 1.0, 0);

        public SharedPrefixes {
            if (poolSize < 0) {
                throw new IllegalArgumentException("sharedPrefixes.poolSize must be >= 0 (0 = none), was " + poolSize);
            }
            if (!(zipfExponent > 0) || Double.isInfinite(zipfExponent)) {
                throw new IllegalArgumentException("sharedPrefixes.zipfExponent must be > 0 and finite, was " + zipfExponent);
            }
            if (poolSize > 0 && prefixTokens <= 0) {
                throw new IllegalArgumentException("sharedPrefixes.prefixTokens must be > 0 with a pool, was " + prefixTokens);
            }
            if (prefixTokens < 0) {
                throw new IllegalArgumentException("sharedPrefixes.prefixTokens must be >= 0, was " + prefixTokens);
            }
        }

        public boolean enabled() {
            return poolSize > 0;
        }
    }

    /**
     * Multi-turn sessions.
     *
     * @param turnsPerSession      turns per session; 1 makes every request its own session
     * @param newUserTokens        tokens the user adds in each turn after the first
     * @param thinkTimeMeanSeconds mean of the exponential gap between a turn's arrival and the next
     *                             turn's (the generator is open loop: a turn does not wait for the
     *                             previous answer, so a short think time lets it miss that turn's KV)
     */
    public record Sessions(int turnsPerSession, LengthDistribution newUserTokens, double thinkTimeMeanSeconds) {

        /** One turn per session. */
        public static final Sessions SINGLE_TURN = new Sessions(1, LengthDistribution.fixed(1), 0);

        public Sessions {
            if (turnsPerSession <= 0) {
                throw new IllegalArgumentException("sessions.turnsPerSession must be > 0, was " + turnsPerSession);
            }
            required("sessions.newUserTokens", newUserTokens);
            if (!(thinkTimeMeanSeconds >= 0) || Double.isInfinite(thinkTimeMeanSeconds)) {
                throw new IllegalArgumentException("sessions.thinkTimeMeanSeconds must be >= 0 and finite, was "
                        + thinkTimeMeanSeconds);
            }
        }
    }

    private static void required(String field, Object value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must be set");
        }
    }
}
