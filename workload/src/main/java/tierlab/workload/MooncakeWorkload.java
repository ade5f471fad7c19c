package tierlab.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;

/**
 * A Mooncake trace as simulator requests, re-blocked from the trace's 512-token blocks to the
 * model's {@code blockTokens}.
 *
 * <p>Per trace request (request id = its 0-based position in the file): {@code arrivalNs} =
 * timestamp ms × 10^6 × {@code timeScale}; {@code promptTokens} = {@code input_length};
 * {@code outputTokens} = max(1, {@code output_length}) (the engine always emits at least one
 * token); and the chain:
 *
 * <pre>
 *   trace blocks (512 tokens):  |      hash_ids[0]       |      hash_ids[1]       | ...
 *   model blocks (bt tokens):   | b=0 | b=1 | ... |b=k-1 | b=k | ...
 *   model block b covers tokens [b·bt, (b+1)·bt): trace block j = b·bt / 512, sub-block (b·bt mod 512) / bt
 *   key_b = BlockKey.fromTraceId(key_(b-1), hash_ids[j], sub),   key_(-1) = BlockKey.ROOT
 * </pre>
 *
 * Only full model blocks get keys, and only those inside both {@code input_length} and the trace's
 * {@code hash_ids} coverage (a trailing partial block is recomputed, as the store never holds one).
 * 512 must be a multiple of {@code blockTokens}, so that no model block straddles two trace blocks.
 *
 * <p><b>Why this keeps the prefix property.</b> Which (j, sub) a model block maps to depends only
 * on b and bt, never on the request, so by induction key_b is a function of hash_ids[0..j(b)]
 * alone. Two requests whose hash_ids agree on the first k entries therefore get identical keys for
 * every model block with j(b) &lt; k: exactly the first k·512/bt keys. At b = k·512/bt the inputs
 * to the hash differ (different trace id, same parent), so the keys differ, and every key after
 * it differs too because it chains through a different parent. This is stricter than the trace:
 * equal ids after a differing id still give different keys, so re-blocking can lose a hit the
 * trace would not claim but never invent one. A partial last trace block is cut into sub-blocks
 * the same way; as in the trace, an equal id there is taken to mean equal tokens.
 */
public final class MooncakeWorkload {

    /** Tokens per block of Mooncake's {@code hash_ids}. */
    public static final int TRACE_BLOCK_TOKENS = 512;

    /**
     * How to replay the trace.
     *
     * @param requestLimit the first this many requests of the file (in file order); 0 replays all
     * @param timeScale    multiplies every timestamp: 0.5 replays the trace twice as fast, 2 half as fast
     */
    public record Options(long requestLimit, double timeScale) {

        /** Every request at the trace's own pace. */
        public static final Options ALL = new Options(0, 1.0);

        public Options {
            if (requestLimit < 0) {
                throw new IllegalArgumentException("requestLimit must be >= 0 (0 = every request), was " + requestLimit);
            }
            if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
                throw new IllegalArgumentException("timeScale must be > 0 and finite, was " + timeScale);
            }
        }

        public Options withRequestLimit(long newRequestLimit) {
            return new Options(newRequestLimit, timeScale);
        }

        public Options withTimeScale(double newTimeScale) {
            return new Options(requestLimit, newTimeScale);
        }
    }

    private MooncakeWorkload() {
    }

    /** Reads {@code file} and turns it into requests; bad lines fail naming the file and line. */
    public static List<RequestSpec> load(Path file, Geometry geometry, Options options) {
        return requests(MooncakeTraceReader.read(file), geometry, options);
    }

    /**
     * The trace's requests for {@code geometry}, sorted by arrival (ties by request id). A request
     * that cannot be replayed (an empty prompt, a timestamp too large for ns) fails with a
     * {@link TraceFormatException} naming its file and line.
     */
    public static List<RequestSpec> requests(MooncakeTrace trace, Geometry geometry, Options options) {
        checkBlockTokens(geometry.blockTokens());
        List<MooncakeRequest> source = trace.requests();
        int count = options.requestLimit() == 0 ? source.size() : (int) Math.min(options.requestLimit(), source.size());
        List<RequestSpec> specs = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            MooncakeRequest request = source.get(index);
            if (request.inputTokens() == 0) {
                throw new TraceFormatException(trace.file(), request.lineNumber(),
                        "input_length is 0; a request needs at least one prompt token to be replayed");
            }
            long arrivalNs = arrivalNs(trace.file(), request, options.timeScale());
            specs.add(new RequestSpec(index, arrivalNs, request.inputTokens(), Math.max(1, request.outputTokens()),
                    chain(request.hashIds(), request.inputTokens(), geometry.blockTokens())));
        }
        return Workloads.sortedByArrival(specs);
    }

    /**
     * The model-block chain of one trace request: one key per full {@code blockTokens} block
     * within both {@code inputTokens} and the coverage of {@code hashIds} (see the class comment).
     */
    public static List<BlockKey> chain(long[] hashIds, long inputTokens, int blockTokens) {
        checkBlockTokens(blockTokens);
        int subBlocks = TRACE_BLOCK_TOKENS / blockTokens;
        long coveredBlocks = (long) hashIds.length * subBlocks;
        int blocks = (int) Math.min(inputTokens / blockTokens, coveredBlocks);
        List<BlockKey> chain = new ArrayList<>(blocks);
        BlockKey parent = BlockKey.ROOT;
        for (int block = 0; block < blocks; block++) {
            long firstToken = (long) block * blockTokens;
            int traceBlock = (int) (firstToken / TRACE_BLOCK_TOKENS);
            int subBlock = (int) (firstToken % TRACE_BLOCK_TOKENS) / blockTokens;
            parent = BlockKey.fromTraceId(parent, hashIds[traceBlock], subBlock);
            chain.add(parent);
        }
        return List.copyOf(chain);
    }

    /** Refuses a block size that does not divide the trace's 512-token blocks. */
    public static void checkBlockTokens(int blockTokens) {
        if (blockTokens <= 0 || TRACE_BLOCK_TOKENS % blockTokens != 0) {
            throw new IllegalArgumentException("blockTokens: a Mooncake trace (" + TRACE_BLOCK_TOKENS
                    + "-token blocks) can only be re-blocked to a block size that divides " + TRACE_BLOCK_TOKENS
                    + " (e.g. 16, 32, 64, 128, 256, 512), but blockTokens is " + blockTokens);
        }
    }

    private static long arrivalNs(Path file, MooncakeRequest request, double timeScale) {
        long timestampMs = request.timestampMs();
        if (timeScale == 1.0 && timestampMs <= Long.MAX_VALUE / 1_000_000) {
            return timestampMs * 1_000_000;
        }
        double scaledNs = timestampMs * 1e6 * timeScale;
        if (scaledNs >= 0x1p63) {
            throw new TraceFormatException(file, request.lineNumber(), "timestamp " + timestampMs
                    + " ms (x timeScale " + timeScale + ") does not fit in a 64-bit ns arrival time");
        }
        return Math.round(scaledNs);
    }
}
