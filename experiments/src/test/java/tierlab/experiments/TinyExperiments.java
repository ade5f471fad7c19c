package tierlab.experiments;

/**
 * The small synthetic workload the command-line and run-path tests share: the {@code tiny} KV shape
 * in 16-token blocks over two lanes, Poisson arrivals at 400 per second, prompts of 80–200 tokens and
 * 1–4 output tokens. A test puts its own name, mode, store and seeds around it.
 */
public final class TinyExperiments {

    private TinyExperiments() {
    }

    /**
     * The {@code workload:} section (top-level indentation, ending in a newline) with {@code requestCount}
     * requests; further {@code synthetic:} keys may follow it indented by four spaces.
     */
    public static String syntheticWorkload(int requestCount) {
        return """
                workload:
                  type: synthetic
                  model: tiny
                  blockTokens: 16
                  tp: 2
                  synthetic:
                    requestCount: %d
                    arrivals: {kind: poisson, ratePerSecond: 400}
                    promptTokens: {kind: uniform, minTokens: 80, maxTokens: 200}
                    outputTokens: {kind: uniform, minTokens: 1, maxTokens: 4}
                """.formatted(requestCount);
    }
}
