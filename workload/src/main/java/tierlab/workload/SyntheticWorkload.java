package tierlab.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.ExponentialDistribution;
import org.apache.commons.math3.distribution.ZipfDistribution;
import org.apache.commons.math3.random.Well19937c;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.util.SeedTree;

/**
 * Generates a synthetic workload (see {@link SyntheticSettings} for its shape).
 *
 * <p>Prompts are built from synthetic token ids and keyed with {@link BlockKey#chain} exactly as
 * a real prompt would be, so the prefix property holds by construction: a shared prefix is the
 * same token ids (drawn from that prefix's own seed stream), and a later turn starts with the
 * previous turn's token ids, so their full blocks get the same keys.
 *
 * <p>Each kind of random choice has its own stream of the {@link SeedTree}: arrivals, think times,
 * prompt lengths, output lengths, new user tokens per turn, prefix choice, each prefix's tokens and
 * the unique tokens. Changing one setting therefore leaves the others' draws where they were.
 * Request ids are assigned in arrival order (ties in generation order: session by session, turn
 * by turn), starting at 0.
 */
public final class SyntheticWorkload {

    static final String ARRIVALS = "workload.synthetic.arrivals";
    static final String THINK_TIMES = "workload.synthetic.think-times";
    static final String PROMPT_LENGTHS = "workload.synthetic.prompt-lengths";
    static final String OUTPUT_LENGTHS = "workload.synthetic.output-lengths";
    static final String USER_TOKENS = "workload.synthetic.user-token-counts";
    static final String PREFIX_CHOICE = "workload.synthetic.prefix-choice";
    static final String PREFIX_TOKENS = "workload.synthetic.prefix.";
    static final String UNIQUE_TOKENS = "workload.synthetic.unique-tokens";

    /** A shared prefix: its token ids and the keys of its full blocks. */
    private record Prefix(int[] tokens, List<BlockKey> chain) {
    }

    private SyntheticWorkload() {
    }

    /** The requests, sorted by arrival with ids 0..requestCount-1 in arrival order. */
    public static List<RequestSpec> generate(SyntheticSettings settings, Geometry geometry, SeedTree seeds) {
        int blockTokens = geometry.blockTokens();
        SyntheticSettings.Sessions sessions = settings.sessions();
        int turns = sessions.turnsPerSession();
        int sessionCount = Math.ceilDiv(settings.requestCount(), turns);

        long[] sessionStartsNs = settings.arrivals().arrivalTimesNs(sessionCount, new Well19937c(seeds.seedOf(ARRIVALS)));
        ExponentialDistribution thinkTimeNs = sessions.thinkTimeMeanSeconds() == 0
                ? null
                : new ExponentialDistribution(new Well19937c(seeds.seedOf(THINK_TIMES)), sessions.thinkTimeMeanSeconds() * 1e9);
        SplittableRandom promptLengths = seeds.random(PROMPT_LENGTHS);
        SplittableRandom outputLengths = seeds.random(OUTPUT_LENGTHS);
        SplittableRandom userTokenCounts = seeds.random(USER_TOKENS);
        SplittableRandom uniqueTokens = seeds.random(UNIQUE_TOKENS);

        SyntheticSettings.SharedPrefixes shared = settings.sharedPrefixes();
        ZipfDistribution prefixRank = shared.enabled()
                ? new ZipfDistribution(new Well19937c(seeds.seedOf(PREFIX_CHOICE)), shared.poolSize(), shared.zipfExponent())
                : null;
        Prefix[] prefixes = new Prefix[shared.poolSize()];

        List<RequestSpec> generated = new ArrayList<>(settings.requestCount());
        for (int session = 0; session < sessionCount; session++) {
            long arrivalNs = sessionStartsNs[session];
            int promptTokens = Workloads.tokenCount("promptTokens", settings.promptTokens().sample(promptLengths));
            int[] tokens = new int[promptTokens];
            List<BlockKey> knownPrefix = List.of();
            int uniqueFrom = 0;
            if (prefixRank != null) {
                int index = prefixRank.sample() - 1;
                if (prefixes[index] == null) {
                    prefixes[index] = prefix(seeds, index, (int) shared.prefixTokens(), blockTokens);
                }
                Prefix prefix = prefixes[index];
                System.arraycopy(prefix.tokens(), 0, tokens, 0, prefix.tokens().length);
                knownPrefix = prefix.chain();
                uniqueFrom = prefix.tokens().length;
            }
            Workloads.fillTokens(uniqueTokens, tokens, uniqueFrom, promptTokens - uniqueFrom);
            List<BlockKey> chain = Workloads.extendChain(knownPrefix, tokens, promptTokens, blockTokens);

            long previousOutputTokens = 0;
            for (int turn = 0; turn < turns && generated.size() < settings.requestCount(); turn++) {
                if (turn > 0) {
                    if (thinkTimeNs != null) {
                        arrivalNs = Math.addExact(arrivalNs, Math.round(thinkTimeNs.sample()));
                    }
                    long newUserTokens = sessions.newUserTokens().sample(userTokenCounts);
                    int grown = Workloads.tokenCount("promptTokens of turn " + turn,
                            tokens.length + previousOutputTokens + newUserTokens);
                    int appendFrom = tokens.length;
                    tokens = Arrays.copyOf(tokens, grown);
                    // The previous answer, then the user's new message: synthetic ids for both.
                    Workloads.fillTokens(uniqueTokens, tokens, appendFrom, grown - appendFrom);
                    chain = Workloads.extendChain(chain, tokens, grown, blockTokens);
                }
                long outputTokens = settings.outputTokens().sample(outputLengths);
                generated.add(new RequestSpec(generated.size(), arrivalNs, tokens.length, outputTokens, chain));
                previousOutputTokens = outputTokens;
            }
        }

        List<RequestSpec> sorted = Workloads.sortedByArrival(generated);
        List<RequestSpec> renumbered = new ArrayList<>(sorted.size());
        for (RequestSpec spec : sorted) {
            renumbered.add(new RequestSpec(renumbered.size(), spec.arrivalNs(), spec.promptTokens(), spec.outputTokens(),
                    spec.chain()));
        }
        return List.copyOf(renumbered);
    }

    private static Prefix prefix(SeedTree seeds, int index, int prefixTokens, int blockTokens) {
        int[] tokens = new int[prefixTokens];
        Workloads.fillTokens(seeds.random(PREFIX_TOKENS + index), tokens, 0, prefixTokens);
        return new Prefix(tokens, Workloads.extendChain(List.of(), tokens, prefixTokens, blockTokens));
    }
}
