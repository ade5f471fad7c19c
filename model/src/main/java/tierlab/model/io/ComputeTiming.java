package tierlab.model.io;


/**
 * How long an engine step takes: a fixed step cost, a per-token prefill cost, an attention cost per
 * (new token × cached token) pair, a per-sequence decode cost. The simulator's GPU model and the
 * live runtime's timed delay (on a machine without a GPU) both use this formula, so a GPU profile
 * means the same in every mode; it lives in the model so both reach it without sim importing engine.
 */
public record ComputeTiming(long stepOverheadNs, double prefillNsPerToken, double attentionNsPerTokenPair,
                            long decodeNsPerSequence) {

    public ComputeTiming {
        if (stepOverheadNs < 0 || prefillNsPerToken < 0 || attentionNsPerTokenPair < 0 || decodeNsPerSequence < 0) {
            throw new IllegalArgumentException("compute timing terms must be >= 0");
        }
    }

    public long stepNs(IoOp.Compute compute) {
        double ns = stepOverheadNs;
        // Indexed: every simulated step comes through here, and an iterator each time is garbage.
        java.util.List<IoOp.ComputeItem> items = compute.items();
        for (int i = 0; i < items.size(); i++) {
            IoOp.ComputeItem item = items.get(i);
            boolean decode = item.newTokens() == 1 && item.blocksCompleted().isEmpty() && item.contextTokens() > 0;
            ns += decode ? decodeNsPerSequence : prefillNsPerToken * item.newTokens();
            ns += attentionNsPerTokenPair * item.newTokens() * (double) item.contextTokens();
        }
        return (long) Math.ceil(ns);
    }
}
