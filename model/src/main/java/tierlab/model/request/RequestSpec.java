package tierlab.model.request;

import java.util.List;
import tierlab.model.geometry.BlockKey;

/**
 * One request as the workload gives it.
 *
 * @param chain the prompt's full-block prefix keys (block 0 first); a trailing partial block has none
 */
public record RequestSpec(long requestId, long arrivalNs, long promptTokens, long outputTokens, List<BlockKey> chain) {
    public RequestSpec {
        if (promptTokens <= 0) {
            throw new IllegalArgumentException("request " + requestId + ": promptTokens must be > 0, was " + promptTokens);
        }
        if (outputTokens <= 0) {
            throw new IllegalArgumentException("request " + requestId + ": outputTokens must be > 0, was " + outputTokens);
        }
        chain = List.copyOf(chain);
    }
}
