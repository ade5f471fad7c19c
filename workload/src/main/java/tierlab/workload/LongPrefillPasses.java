package tierlab.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.geometry.ModelShape;
import tierlab.model.request.RequestSpec;
import tierlab.model.util.SeedTree;

/**
 * The reference benchmarks' workload: P distinct long prompts, a cold pass that computes and saves
 * them, then a warm pass of the same prompts in the same order that should load them instead.
 *
 * <p>The warm pass of the reference starts when the cold pass has finished, a time only the run
 * knows; so the passes are separate lists: {@link #coldPass()} arrives from time 0, and
 * {@link #warmPass(long, long)} from the start the caller passes in, with its own request ids.
 * Both carry the same prompts with identical chains in identical order.
 *
 * <p>Prompt lengths and token ids are drawn once, at construction, from the {@link SeedTree}
 * streams {@value #LENGTHS} and {@value #TOKENS}; prompts share no tokens, so no prompt hits
 * another's blocks and every warm hit is a block the cold pass saved.
 */
public final class LongPrefillPasses {

    static final String LENGTHS = "workload.long-prefill.lengths";
    static final String TOKENS = "workload.long-prefill.tokens";

    /** Seed of the presets: E2 names 42; E1 and E3 name none, so they use the same. */
    public static final long REFERENCE_SEED = 42;
    /** The KV volume E1 states for Qwen3-8B (LongBench multi_news, 200 prompts). */
    public static final double E1_REFERENCE_KV_GIB = 72.68;
    /** E1's prompts: 200 of about 2,650 tokens (529k tokens in all). */
    public static final int E1_PROMPTS = 200;
    /** E1's mean prompt length: 72.68 GiB / 144 KiB per token / 200 prompts ≈ 2,646 tokens. */
    public static final long E1_MEAN_PROMPT_TOKENS = 2_646;
    /** Half-width of E1's prompt length range around its mean (a stand-in for multi_news's spread). */
    public static final long E1_PROMPT_SPREAD_TOKENS = 500;
    public static final int E2_PROMPTS = 200;
    public static final long E2_PROMPT_TOKENS = 10_000;
    public static final int E2_BLOCK_TOKENS = 128;
    /** E2's engine concurrency; a scheduler setting ({@code maxNumSeqs}), not part of the request list. */
    public static final int E2_CONCURRENCY = 16;
    public static final int E3_PROMPTS = 200;
    public static final long E3_PROMPT_TOKENS = 8_192;
    /** E3's engine concurrency; a scheduler setting ({@code maxNumSeqs}), not part of the request list. */
    public static final int E3_CONCURRENCY = 8;
    /** The reference block size, used where an experiment names none. */
    public static final int REFERENCE_BLOCK_TOKENS = 16;

    private final LongPrefillSettings settings;
    private final Geometry geometry;
    private final long[] promptTokens;
    private final List<List<BlockKey>> chains;

    public LongPrefillPasses(LongPrefillSettings settings, Geometry geometry, SeedTree seeds) {
        this.settings = settings;
        this.geometry = geometry;
        this.promptTokens = drawLengths(settings, seeds.random(LENGTHS));
        SplittableRandom tokens = seeds.random(TOKENS);
        List<List<BlockKey>> built = new ArrayList<>(settings.prompts());
        for (long length : promptTokens) {
            int count = Workloads.tokenCount("promptTokens", length);
            int[] ids = new int[count];
            Workloads.fillTokens(tokens, ids, 0, count);
            built.add(Workloads.extendChain(List.of(), ids, count, geometry.blockTokens()));
        }
        this.chains = List.copyOf(built);
    }

    // ---- the reference presets (docs/experiments.md) ----------------------------------

    /**
     * E1 {@code l2-read-batching}: 200 prompts of 2,146–3,146 tokens whose total is pinned to
     * 200 × 2,646 = 529,200 tokens (72.68 GiB of Qwen3-8B KV), 1 output token, all at once,
     * 16-token blocks. The spread stands in for LongBench multi_news, whose exact lengths are not
     * part of the reference's record.
     */
    public static LongPrefillPasses e1(ModelShape shape) {
        LongPrefillSettings settings = new LongPrefillSettings("e1-l2-read-batching", E1_PROMPTS,
                LengthDistribution.uniform(E1_MEAN_PROMPT_TOKENS - E1_PROMPT_SPREAD_TOKENS,
                        E1_MEAN_PROMPT_TOKENS + E1_PROMPT_SPREAD_TOKENS),
                true, 1, 0);
        return new LongPrefillPasses(settings, new Geometry(shape, REFERENCE_BLOCK_TOKENS, 1), new SeedTree(REFERENCE_SEED));
    }

    /** E2 {@code prefetch-window}: 200 × 10,000 tokens, 1 output token, block 128, seed 42, all at once. */
    public static LongPrefillPasses e2(ModelShape shape) {
        LongPrefillSettings settings = LongPrefillSettings.fixed("e2-prefetch-window", E2_PROMPTS, E2_PROMPT_TOKENS, 1);
        return new LongPrefillPasses(settings, new Geometry(shape, E2_BLOCK_TOKENS, 1), new SeedTree(REFERENCE_SEED));
    }

    /** E3 {@code save-admission}: 200 × 8,192 tokens, 1 output token, 16-token blocks, all at once. */
    public static LongPrefillPasses e3(ModelShape shape) {
        LongPrefillSettings settings = LongPrefillSettings.fixed("e3-save-admission", E3_PROMPTS, E3_PROMPT_TOKENS, 1);
        return new LongPrefillPasses(settings, new Geometry(shape, REFERENCE_BLOCK_TOKENS, 1), new SeedTree(REFERENCE_SEED));
    }

    /** E1 for the reference model, Qwen3-8B. */
    public static LongPrefillPasses e1() {
        return e1(ModelShape.QWEN3_8B);
    }

    /** E2 for the reference model, Qwen3-8B. */
    public static LongPrefillPasses e2() {
        return e2(ModelShape.QWEN3_8B);
    }

    /** E3 for the reference model, Qwen3-8B. */
    public static LongPrefillPasses e3() {
        return e3(ModelShape.QWEN3_8B);
    }

    // ---- the passes ---------------------------------------------------------------------------

    /** The cold pass: request ids 0..prompts-1, the first arrival at time 0. */
    public List<RequestSpec> coldPass() {
        return pass(0, 0);
    }

    /**
     * The warm pass: the same prompts in the same order, request ids from {@code firstRequestId}
     * (at least {@link #prompts()}, so they never collide with the cold pass's), the first arrival
     * at {@code startNs} (typically the virtual time the cold pass finished).
     */
    public List<RequestSpec> warmPass(long startNs, long firstRequestId) {
        if (firstRequestId < settings.prompts()) {
            throw new IllegalArgumentException("firstRequestId of the warm pass must be >= " + settings.prompts()
                    + " (the cold pass uses 0.." + (settings.prompts() - 1) + "), was " + firstRequestId);
        }
        return pass(startNs, firstRequestId);
    }

    /** The warm pass with ids right after the cold pass's: prompts..2·prompts-1. */
    public List<RequestSpec> warmPass(long startNs) {
        return warmPass(startNs, settings.prompts());
    }

    private List<RequestSpec> pass(long startNs, long firstRequestId) {
        if (startNs < 0) {
            throw new IllegalArgumentException("startNs must be >= 0, was " + startNs);
        }
        List<RequestSpec> requests = new ArrayList<>(settings.prompts());
        for (int prompt = 0; prompt < settings.prompts(); prompt++) {
            long arrivalNs = Math.addExact(startNs, Math.multiplyExact(prompt, settings.arrivalSpacingNs()));
            requests.add(new RequestSpec(Math.addExact(firstRequestId, prompt), arrivalNs, promptTokens[prompt],
                    settings.outputTokens(), chains.get(prompt)));
        }
        return List.copyOf(requests);
    }

    public LongPrefillSettings settings() {
        return settings;
    }

    /** The geometry the chains were built for; give the store the same one. */
    public Geometry geometry() {
        return geometry;
    }

    public int prompts() {
        return settings.prompts();
    }

    /** Prompt tokens of one pass. */
    public long totalPromptTokens() {
        long total = 0;
        for (long length : promptTokens) {
            total += length;
        }
        return total;
    }

    private static long[] drawLengths(LongPrefillSettings settings, SplittableRandom random) {
        long[] lengths = new long[settings.prompts()];
        long sum = 0;
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = settings.promptTokens().sample(random);
            sum = Math.addExact(sum, lengths[i]);
        }
        if (settings.pinTotalTokens()) {
            long target = Math.round(settings.prompts() * settings.promptTokens().meanTokens());
            pinTotal(lengths, target - sum);
        }
        return lengths;
    }

    /**
     * Moves the sum of {@code lengths} by {@code remaining} tokens, spreading the change evenly over
     * the prompts in order and never taking a prompt below one token. Each round changes the sum by
     * at least one token, and a target of at least one token per prompt is always reachable
     * (the mean of a length distribution is at least 1).
     */
    private static void pinTotal(long[] lengths, long remaining) {
        while (remaining != 0) {
            int eligible = 0;
            for (long length : lengths) {
                if (remaining > 0 || length > 1) {
                    eligible++;
                }
            }
            long step = remaining / eligible;
            if (step == 0) {
                step = Long.signum(remaining);
            }
            for (int i = 0; i < lengths.length && remaining != 0; i++) {
                long delta = remaining > 0
                        ? Math.min(step, remaining)
                        : Math.max(Math.max(step, remaining), 1 - lengths[i]);
                lengths[i] += delta;
                remaining -= delta;
            }
        }
    }
}
