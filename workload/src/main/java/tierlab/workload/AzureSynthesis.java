package tierlab.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;

/**
 * The seeded model that gives the prompts of an Azure LLM inference trace block ids (the trace
 * publishes only token counts). docs/traces.md states it in full; in short, request by request in
 * file order, with {@code n = ceil(ContextTokens / blockTokens)} blocks of which
 * {@code full = floor(ContextTokens / blockTokens)} are full:
 *
 * <ol>
 *   <li><b>Follow-up.</b> With probability {@code followUpProbability}, the request continues the most
 *       recent of the previous {@code followUpWindow} requests that is shorter than it and not
 *       continued yet: its prompt starts with that request's full blocks (a conversation's next turn
 *       resends the context).</li>
 *   <li><b>Shared prefix.</b> Otherwise it draws a prefix group from a Zipf({@code prefixGroups},
 *       {@code zipfExponent}) popularity (a system prompt or a shared document); a group's length is
 *       drawn once, at its first use, uniformly in [1, {@code maxSharedPrefixTokens / blockTokens}]
 *       blocks, and the prompt starts with min(that, full) of the group's blocks.</li>
 *   <li>Every other block (the partial last one included) gets a fresh id.</li>
 * </ol>
 *
 * Ids are sequential from 0 in order of creation, so the same rows and settings always give the
 * same ids. Randomness: one {@link SplittableRandom} of {@code seed} (the follow-up coin and group
 * lengths) and one Well19937c of {@code seed} for the Zipf draw, each used in file order only.
 *
 * @param seed                  seeds both generators
 * @param blockTokens           tokens per synthesised block [16, vLLM's default block]
 * @param prefixGroups          distinct shared prefixes [64]
 * @param zipfExponent          popularity skew of the groups [1.0]
 * @param maxSharedPrefixTokens longest shared prefix, in tokens [4096]
 * @param followUpProbability   chance that a request continues an earlier one [0.5]
 * @param followUpWindow        how many previous requests a follow-up looks back over [32]
 */
public record AzureSynthesis(long seed, int blockTokens, int prefixGroups, double zipfExponent,
                             long maxSharedPrefixTokens, double followUpProbability, int followUpWindow) {

    /** The defaults documented above and in docs/traces.md. */
    public static final AzureSynthesis DEFAULT = new AzureSynthesis(42, 16, 64, 1.0, 4096, 0.5, 32);

    /** The most blocks one synthesised prompt may have (a 2^24-block prompt is already absurd). */
    static final long MAX_PROMPT_BLOCKS = 1L << 24;

    public AzureSynthesis {
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens must be >= 1, was " + blockTokens);
        }
        if (prefixGroups < 1) {
            throw new IllegalArgumentException("prefixGroups must be >= 1, was " + prefixGroups);
        }
        if (!(zipfExponent > 0) || Double.isInfinite(zipfExponent)) {
            throw new IllegalArgumentException("zipfExponent must be > 0 and finite, was " + zipfExponent);
        }
        if (maxSharedPrefixTokens < blockTokens) {
            throw new IllegalArgumentException("maxSharedPrefixTokens must be >= blockTokens (" + blockTokens + "), was "
                    + maxSharedPrefixTokens);
        }
        if (!(followUpProbability >= 0 && followUpProbability <= 1)) {
            throw new IllegalArgumentException("followUpProbability must be in [0, 1], was " + followUpProbability);
        }
        if (followUpWindow < 0) {
            throw new IllegalArgumentException("followUpWindow must be >= 0, was " + followUpWindow);
        }
    }

    /** The rows' requests with synthesised block ids, as a trace of format {@code azure}. */
    public RequestTrace apply(Path file, List<AzureTraceReader.Row> rows) {
        SplittableRandom random = new SplittableRandom(seed);
        ZipfDistribution groupRank = new ZipfDistribution(new Well19937c(seed), prefixGroups, zipfExponent);
        long[][] groupBlocks = new long[prefixGroups][];
        long maxGroupBlocks = maxSharedPrefixTokens / blockTokens;
        long[] nextId = {0};
        List<TraceRequest> requests = new ArrayList<>(rows.size());
        boolean[] continued = new boolean[rows.size()];
        long references = 0;
        for (int index = 0; index < rows.size(); index++) {
            AzureTraceReader.Row row = rows.get(index);
            long blocks = Math.ceilDiv(row.contextTokens(), blockTokens);
            int full = (int) Math.min(row.contextTokens() / blockTokens, MAX_PROMPT_BLOCKS);
            if (blocks > MAX_PROMPT_BLOCKS) {
                throw new TraceFormatException(file, row.lineNumber(), "ContextTokens " + row.contextTokens()
                        + " is more than " + MAX_PROMPT_BLOCKS + " blocks of " + blockTokens + " tokens");
            }
            references += blocks;
            if (references > RequestTrace.MAX_REFERENCES) {
                throw new TraceException(file, file + ": more than " + RequestTrace.MAX_REFERENCES
                        + " block references are too many to replay at once");
            }
            long[] ids = new long[(int) blocks];
            int shared = 0;
            int parent = random.nextDouble() < followUpProbability ? followed(rows, continued, index, full) : -1;
            if (parent >= 0) {
                continued[parent] = true;
                long[] parentIds = requests.get(parent).hashIds();
                shared = (int) (rows.get(parent).contextTokens() / blockTokens);
                System.arraycopy(parentIds, 0, ids, 0, shared);
            } else if (full > 0) {
                int group = groupRank.sample() - 1;
                if (groupBlocks[group] == null) {
                    long length = 1 + random.nextLong(maxGroupBlocks);
                    groupBlocks[group] = new long[(int) length];
                    for (int block = 0; block < length; block++) {
                        groupBlocks[group][block] = nextId[0]++;
                    }
                }
                shared = Math.min(groupBlocks[group].length, full);
                System.arraycopy(groupBlocks[group], 0, ids, 0, shared);
            }
            for (int block = shared; block < ids.length; block++) {
                ids[block] = nextId[0]++;
            }
            requests.add(new TraceRequest(row.lineNumber(), row.arrivalNs(), row.contextTokens(), row.generatedTokens(), ids));
        }
        return new RequestTrace(file, "azure", blockTokens, requests);
    }

    /**
     * The request a follow-up at {@code index} continues: the most recent of the window that is not
     * continued yet and whose full blocks are fewer than {@code full} (a conversation grows), or -1.
     */
    private int followed(List<AzureTraceReader.Row> rows, boolean[] continued, int index, int full) {
        for (int earlier = index - 1; earlier >= Math.max(0, index - followUpWindow); earlier--) {
            long earlierFull = rows.get(earlier).contextTokens() / blockTokens;
            if (!continued[earlier] && earlierFull > 0 && earlierFull < full) {
                return earlier;
            }
        }
        return -1;
    }

    /** The settings as text, for run records: every field by name. */
    @Override
    public String toString() {
        return String.join(" ", Arrays.asList("seed=" + seed, "blockTokens=" + blockTokens, "prefixGroups=" + prefixGroups,
                "zipfExponent=" + zipfExponent, "maxSharedPrefixTokens=" + maxSharedPrefixTokens,
                "followUpProbability=" + followUpProbability, "followUpWindow=" + followUpWindow));
    }
}
