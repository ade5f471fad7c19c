package tierlab.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A trace as read from its file by one of the {@link TraceFormats}, in file order: what the
 * block-level replay and the trace workloads need, whatever the format.
 *
 * @param file        the file it was read from, as named on the command line or in the experiment
 * @param format      the registry name of its format ({@code qwen}, {@code azure}, ...)
 * @param blockTokens tokens per block of its {@code hashIds}; 0 for a trace of cache objects (the
 *                    libCacheSim formats), whose ids are whole objects with no token count
 * @param requests    the requests, in file order
 * @param warnings    what the reader accepted but the user should know, one line each naming the file and
 *                    line ({@code FILE:LINE: ...}); the commands print them on stderr
 */
public record RequestTrace(Path file, String format, int blockTokens, List<TraceRequest> requests, List<String> warnings) {

    /** The most block references one replay holds in memory (one array). */
    public static final long MAX_REFERENCES = Integer.MAX_VALUE - 8;

    /**
     * The most tokens a trace may give one request's prompt or output: 100 million, far beyond any
     * model's context. A larger count is an edit or a unit mix-up, and the token sums of a request
     * (prompt + output, in blocks) must not overflow.
     */
    public static final long MAX_REQUEST_TOKENS = 100_000_000L;

    /** The refusal of a token count above {@link #MAX_REQUEST_TOKENS}, or null when it is within it. */
    public static String tokenCountProblem(String field, long tokens) {
        return tokens <= MAX_REQUEST_TOKENS ? null : String.format(java.util.Locale.ROOT,
                "%s is %,d tokens; a request's prompt or output may have at most %,d", field, tokens, MAX_REQUEST_TOKENS);
    }

    /** A trace the reader has nothing to warn about. */
    public RequestTrace(Path file, String format, int blockTokens, List<TraceRequest> requests) {
        this(file, format, blockTokens, requests, List.of());
    }

    public RequestTrace {
        requests = List.copyOf(requests);
        warnings = List.copyOf(warnings);
        if (blockTokens < 0) {
            throw new IllegalArgumentException("blockTokens must be >= 0, was " + blockTokens);
        }
    }

    /** A Mooncake trace in this shape: timestamps from ms to ns, 512-token blocks. */
    public static RequestTrace of(MooncakeTrace trace) {
        List<TraceRequest> requests = new ArrayList<>(trace.requests().size());
        for (MooncakeRequest request : trace.requests()) {
            if (request.timestampMs() > Long.MAX_VALUE / 1_000_000) {
                throw new TraceFormatException(trace.file(), request.lineNumber(), "timestamp " + request.timestampMs()
                        + " ms does not fit in a 64-bit ns arrival time");
            }
            requests.add(new TraceRequest(request.lineNumber(), request.timestampMs() * 1_000_000, request.inputTokens(),
                    request.outputTokens(), request.hashIds()));
        }
        return new RequestTrace(trace.file(), "mooncake", MooncakeWorkload.TRACE_BLOCK_TOKENS, requests);
    }

    /** Each request's block ids, in file order: the shape {@code CacheReplay}'s grouped overload takes. */
    public List<long[]> blockRequests() {
        List<long[]> blocks = new ArrayList<>(requests.size());
        for (TraceRequest request : requests) {
            blocks.add(request.hashIds());
        }
        return blocks;
    }

    /** Total number of block references (the sum of every request's block count). */
    public long references() {
        long references = 0;
        for (TraceRequest request : requests) {
            references += request.hashIds().length;
        }
        return references;
    }

    /** Every block reference in replay order: request by request, each request's blocks in order. */
    public long[] flattenedReferences() {
        long references = references();
        if (references > MAX_REFERENCES) {
            throw new TraceException(file, file + ": " + references + " block references are too many to hold in one array");
        }
        long[] flat = new long[(int) references];
        int next = 0;
        for (TraceRequest request : requests) {
            long[] ids = request.hashIds();
            System.arraycopy(ids, 0, flat, next, ids.length);
            next += ids.length;
        }
        return flat;
    }
}
