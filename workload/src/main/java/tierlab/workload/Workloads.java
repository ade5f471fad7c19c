package tierlab.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;

/** What every workload shares: KV volume, the output contract (sorted, unique ids), synthetic tokens. */
public final class Workloads {

    /** Bytes in one GiB (2^30), the unit the reference system reports KV volume in. */
    public static final long GIB = 1L << 30;

    /**
     * Token ids of synthetic prompts are drawn below Qwen3's vocabulary size. Any large range would
     * do: what matters is that two independently drawn blocks are (practically) never equal, and a
     * 16-token block from 151,936 ids collides with probability about 2^-275.
     */
    static final int SYNTHETIC_VOCABULARY = 151_936;

    private static final Comparator<RequestSpec> BY_ARRIVAL =
            Comparator.comparingLong(RequestSpec::arrivalNs).thenComparingLong(RequestSpec::requestId);

    private Workloads() {
    }

    /**
     * KV bytes of every prompt token of the requests: Σ promptTokens × KV bytes per token. This is
     * how the reference system states a workload's volume ("72.68 GiB of KV").
     */
    public static long kvBytes(List<RequestSpec> requests, Geometry geometry) {
        long tokens = 0;
        for (RequestSpec request : requests) {
            tokens = Math.addExact(tokens, request.promptTokens());
        }
        return Math.multiplyExact(tokens, geometry.shape().kvBytesPerToken());
    }

    /**
     * KV bytes the store can hold for the requests: Σ full blocks × block bytes. Less than
     * {@link #kvBytes} by each prompt's trailing partial block, which is always recomputed.
     */
    public static long storedKvBytes(List<RequestSpec> requests, Geometry geometry) {
        long blocks = 0;
        for (RequestSpec request : requests) {
            blocks += request.chain().size();
        }
        return Math.multiplyExact(blocks, geometry.blockBytes());
    }

    /**
     * Checks the contract every generator keeps: arrivals never go back in time (equal arrivals
     * in ascending id order) and no request id repeats. Throws naming the first offending request.
     */
    public static void checkOrderedAndUnique(List<RequestSpec> requests) {
        Set<Long> ids = new HashSet<>();
        RequestSpec previous = null;
        for (RequestSpec request : requests) {
            if (!ids.add(request.requestId())) {
                throw new IllegalArgumentException("request id " + request.requestId() + " appears twice");
            }
            if (previous != null && BY_ARRIVAL.compare(previous, request) > 0) {
                throw new IllegalArgumentException("request " + request.requestId() + " arrives at " + request.arrivalNs()
                        + " ns, before request " + previous.requestId() + " at " + previous.arrivalNs() + " ns");
            }
            previous = request;
        }
    }

    /** A stable sort by (arrival, request id): ties keep a reproducible order. */
    static List<RequestSpec> sortedByArrival(List<RequestSpec> requests) {
        List<RequestSpec> sorted = new ArrayList<>(requests);
        sorted.sort(BY_ARRIVAL);
        return List.copyOf(sorted);
    }

    /**
     * The full-block prefix chain of {@code tokens[0, tokenCount)}, reusing {@code knownPrefix}: the
     * keys of the first blocks, which the caller guarantees were computed from the same tokens (a
     * shared prefix, or the previous turn of a session). Only the blocks after it are hashed.
     */
    static List<BlockKey> extendChain(List<BlockKey> knownPrefix, int[] tokens, int tokenCount, int blockTokens) {
        int blocks = tokenCount / blockTokens;
        if (knownPrefix.size() > blocks) {
            throw new IllegalArgumentException("known prefix of " + knownPrefix.size() + " blocks is longer than the "
                    + blocks + " full blocks of " + tokenCount + " tokens");
        }
        List<BlockKey> chain = new ArrayList<>(blocks);
        chain.addAll(knownPrefix);
        BlockKey parent = knownPrefix.isEmpty() ? BlockKey.ROOT : knownPrefix.getLast();
        for (int block = knownPrefix.size(); block < blocks; block++) {
            parent = BlockKey.chain(parent, Arrays.copyOfRange(tokens, block * blockTokens, (block + 1) * blockTokens));
            chain.add(parent);
        }
        return List.copyOf(chain);
    }

    /** Appends {@code count} synthetic token ids drawn from {@code random} at {@code tokens[from]}. */
    static void fillTokens(SplittableRandom random, int[] tokens, int from, int count) {
        for (int i = from; i < from + count; i++) {
            tokens[i] = random.nextInt(SYNTHETIC_VOCABULARY);
        }
    }

    /** {@code tokens} as an int, or a message naming the field when a prompt is too long to build. */
    static int tokenCount(String field, long tokens) {
        if (tokens > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(field + ": " + tokens + " tokens is too long to build as one prompt");
        }
        return (int) tokens;
    }
}
