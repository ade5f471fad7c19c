package tierlab.workload;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;

/**
 * A request trace of any format ({@link RequestTrace}) as simulator requests, re-blocked from the
 * trace's blocks of {@code T} tokens to the model's {@code bt}. Either {@code bt} divides {@code T}
 * (Mooncake's 512 to 16: each trace block is cut into {@code T / bt} sub-blocks, exactly as
 * {@link MooncakeWorkload} does) or {@code T} divides {@code bt} (Qwen's 16 to 64: each model block
 * chains the {@code bt / T} trace ids it covers):
 *
 * <pre>
 *   bt | T:  key_b = BlockKey.fromTraceId(key_(b-1), hash_ids[b·bt / T], (b·bt mod T) / bt)
 *   T | bt:  k_0 = key_(b-1);  k_(i+1) = BlockKey.fromTraceId(k_i, hash_ids[b·(bt/T) + i], 0);  key_b = k_(bt/T)
 * </pre>
 *
 * with {@code key_(-1) = BlockKey.ROOT}. Both keep the prefix property for the reason
 * {@link MooncakeWorkload} gives: key_b depends only on the trace ids up to the last one block b
 * covers, so equal id prefixes give equal keys and the first differing id changes every key from
 * there on. Only full model blocks inside both {@code input_length} and the ids' coverage get keys.
 * Per request (request id = its 0-based position in the file): {@code arrivalNs} × {@code timeScale},
 * {@code promptTokens} = input tokens, {@code outputTokens} = max(1, output tokens).
 */
public final class TraceWorkload {

    private TraceWorkload() {
    }

    /**
     * The trace's requests for {@code geometry}, sorted by arrival (ties by request id). A request
     * that cannot be replayed (an empty prompt, an arrival too large) fails naming its file and line.
     */
    public static List<RequestSpec> requests(RequestTrace trace, Geometry geometry, MooncakeWorkload.Options options) {
        checkBlockTokens(trace, geometry.blockTokens());
        List<TraceRequest> source = trace.requests();
        int count = options.requestLimit() == 0 ? source.size() : (int) Math.min(options.requestLimit(), source.size());
        List<RequestSpec> specs = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            TraceRequest request = source.get(index);
            if (request.inputTokens() == 0) {
                throw new TraceFormatException(trace.file(), request.lineNumber(),
                        "input length is 0; a request needs at least one prompt token to be replayed");
            }
            double scaledNs = request.arrivalNs() * options.timeScale();
            if (scaledNs >= 0x1p63) {
                throw new TraceFormatException(trace.file(), request.lineNumber(), "arrival " + request.arrivalNs()
                        + " ns (x timeScale " + options.timeScale() + ") does not fit in 64 bits");
            }
            long arrivalNs = options.timeScale() == 1.0 ? request.arrivalNs() : Math.round(scaledNs);
            specs.add(new RequestSpec(index, arrivalNs, request.inputTokens(), Math.max(1, request.outputTokens()),
                    chain(request.hashIds(), request.inputTokens(), trace.blockTokens(), geometry.blockTokens())));
        }
        return Workloads.sortedByArrival(specs);
    }

    /** The model-block chain of one request (see the class comment). */
    public static List<BlockKey> chain(long[] hashIds, long inputTokens, int traceBlockTokens, int blockTokens) {
        if (traceBlockTokens % blockTokens == 0) {
            int subBlocks = traceBlockTokens / blockTokens;
            int blocks = (int) Math.min(inputTokens / blockTokens, (long) hashIds.length * subBlocks);
            List<BlockKey> chain = new ArrayList<>(blocks);
            BlockKey parent = BlockKey.ROOT;
            for (int block = 0; block < blocks; block++) {
                long firstToken = (long) block * blockTokens;
                parent = BlockKey.fromTraceId(parent, hashIds[(int) (firstToken / traceBlockTokens)],
                        (int) (firstToken % traceBlockTokens) / blockTokens);
                chain.add(parent);
            }
            return List.copyOf(chain);
        }
        int idsPerBlock = blockTokens / traceBlockTokens;
        int blocks = (int) Math.min(inputTokens / blockTokens, hashIds.length / idsPerBlock);
        List<BlockKey> chain = new ArrayList<>(blocks);
        BlockKey parent = BlockKey.ROOT;
        for (int block = 0; block < blocks; block++) {
            for (int id = block * idsPerBlock; id < (block + 1) * idsPerBlock; id++) {
                parent = BlockKey.fromTraceId(parent, hashIds[id], 0);
            }
            chain.add(parent);
        }
        return List.copyOf(chain);
    }

    /** Refuses an object trace, and a block size that neither divides nor is a multiple of the trace's. */
    public static void checkBlockTokens(RequestTrace trace, int blockTokens) {
        int traceBlockTokens = trace.blockTokens();
        if (traceBlockTokens == 0) {
            throw new IllegalArgumentException("workload.trace: " + trace.file() + " is " + withArticle(trace.format())
                    + " trace of cache objects without token counts; it can be replayed block by block"
                    + " (tierlab replay, missRatioCurve) but not run as a workload");
        }
        if (blockTokens <= 0 || (traceBlockTokens % blockTokens != 0 && blockTokens % traceBlockTokens != 0)) {
            throw new IllegalArgumentException("blockTokens: " + withArticle(trace.format()) + " trace (" + traceBlockTokens
                    + "-token blocks) can only be re-blocked to a block size that divides " + traceBlockTokens
                    + " or is a multiple of it, but blockTokens is " + blockTokens);
        }
    }

    /** "a qwen", "an azure": a format's name with its article, for messages. */
    public static String withArticle(String format) {
        return ("aeiou".indexOf(format.charAt(0)) >= 0 ? "an " : "a ") + format;
    }
}
