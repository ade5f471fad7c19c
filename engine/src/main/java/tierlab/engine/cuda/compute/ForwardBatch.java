package tierlab.engine.cuda.compute;

import java.util.Arrays;

/**
 * One engine step as the forward pass runs it: per sequence its new tokens, the context tokens already in
 * its KV blocks, and its block table (the device address of each block, in token order). A sequence with
 * one new token is a decode; more is a prefill chunk (causal inside the chunk, over context + chunk).
 */
public record ForwardBatch(int[] newTokens, int[] contextTokens, long[][] blockAddresses) {

    public ForwardBatch {
        if (newTokens.length == 0 || newTokens.length != contextTokens.length || newTokens.length != blockAddresses.length) {
            throw new IllegalArgumentException("a batch needs one new-token count, context and block table per sequence");
        }
        newTokens = newTokens.clone();
        contextTokens = contextTokens.clone();
        blockAddresses = Arrays.stream(blockAddresses).map(long[]::clone).toArray(long[][]::new);
    }

    /** Every sequence has at least one new token and a block for each of its tokens. */
    public void checkInvariants(int blockTokens) {
        for (int s = 0; s < newTokens.length; s++) {
            if (newTokens[s] < 1 || contextTokens[s] < 0) {
                throw new IllegalStateException("sequence " + s + ": " + newTokens[s] + " new over " + contextTokens[s]);
            }
            long need = Math.ceilDiv((long) newTokens[s] + contextTokens[s], blockTokens);
            if (blockAddresses[s].length < need) {
                throw new IllegalStateException("sequence " + s + ": " + blockAddresses[s].length + " blocks for " + need);
            }
        }
    }

    public int sequences() {
        return newTokens.length;
    }

    public int totalNewTokens() {
        return Arrays.stream(newTokens).sum();
    }

    public int maxBlocks() {
        return Arrays.stream(blockAddresses).mapToInt(b -> b.length).max().orElse(0);
    }

    /** The longest sequence, context and new tokens together. */
    public long maxTokens() {
        long max = 0;
        for (int s = 0; s < newTokens.length; s++) {
            max = Math.max(max, (long) newTokens[s] + contextTokens[s]);
        }
        return max;
    }

    public int decodes() {
        return (int) Arrays.stream(newTokens).filter(n -> n == 1).count();
    }

    /** The longest prefill chunk's new tokens (0: every sequence decodes). */
    public int maxPrefillTokens() {
        return Arrays.stream(newTokens).filter(n -> n > 1).max().orElse(0);
    }
}
