package tierlab.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Mooncake trace as read from its JSONL file, in file order.
 *
 * @param file     the file it was read from, as named on the command line
 * @param requests the requests, in file order
 */
public record MooncakeTrace(Path file, List<MooncakeRequest> requests) {

    public MooncakeTrace {
        requests = List.copyOf(requests);
    }

    /** Each request's block ids, in file order: the shape {@code CacheReplay}'s grouped overload takes. */
    public List<long[]> blockRequests() {
        List<long[]> blocks = new ArrayList<>(requests.size());
        for (MooncakeRequest request : requests) {
            blocks.add(request.hashIds());
        }
        return blocks;
    }

    /** Total number of block references (the sum of every request's block count). */
    public long references() {
        long references = 0;
        for (MooncakeRequest request : requests) {
            references += request.hashIds().length;
        }
        return references;
    }

    /** Every block reference in replay order: request by request, each request's blocks in order. */
    public long[] flattenedReferences() {
        long references = references();
        if (references > Integer.MAX_VALUE - 8) {
            throw new TraceException(file, file + ": " + references + " block references are too many to hold in one array");
        }
        long[] flat = new long[(int) references];
        int next = 0;
        for (MooncakeRequest request : requests) {
            long[] ids = request.hashIds();
            System.arraycopy(ids, 0, flat, next, ids.length);
            next += ids.length;
        }
        return flat;
    }
}
