package tierlab.model.testkit;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;

/**
 * Prefix-key chains for tests: block i of a prompt is keyed by its parent and the pair
 * (prompt id, i), as {@link BlockKey#fromTraceId} keys a trace's blocks. Two chains of the same
 * prompt share every key; chains of different prompts share none, so a test controls prefix
 * sharing by its choice of ids alone. Every module's tests build their prompts here, so a
 * workload written in model's tests and one written in sim's name the same blocks.
 */
public final class BlockChains {
    private BlockChains() {}

    /** The first {@code blocks} keys of prompt {@code promptId}. */
    public static List<BlockKey> ofPrompt(long promptId, int blocks) {
        List<BlockKey> keys = new ArrayList<>(blocks);
        BlockKey parent = BlockKey.ROOT;
        for (int block = 0; block < blocks; block++) {
            parent = BlockKey.fromTraceId(parent, promptId, block);
            keys.add(parent);
        }
        return keys;
    }

    /**
     * The first {@code blocks} keys of the prompt called {@code name} (its id is the name's hash),
     * so tests can say "A" and "B" for unrelated prompts.
     */
    public static List<BlockKey> named(String name, int blocks) {
        return ofPrompt(name.hashCode(), blocks);
    }
}
