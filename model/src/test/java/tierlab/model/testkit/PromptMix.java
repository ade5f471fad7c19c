package tierlab.model.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import tierlab.model.geometry.BlockKey;
import tierlab.model.request.RequestSpec;

/**
 * A reproducible stream of requests over a few shared prompts, so later requests hit the blocks
 * earlier ones saved: request i picks prompt {@code p} in [0, prompts), has {@code 3 + p % blockSpread}
 * blocks of 16 tokens plus 5 tokens, 1 to 3 output tokens, and arrives up to {@code maxGapNs} after
 * the one before. The same seed and sizes always give the same requests.
 */
public final class PromptMix {
    private PromptMix() {}

    public static List<RequestSpec> requests(long seed, int count, int prompts, int blockSpread, int maxGapNs) {
        SplittableRandom random = new SplittableRandom(seed);
        List<RequestSpec> requests = new ArrayList<>(count);
        long t = 0;
        for (int i = 0; i < count; i++) {
            int prompt = random.nextInt(prompts);
            int blocks = 3 + prompt % blockSpread;
            List<BlockKey> chain = BlockChains.ofPrompt(prompt, blocks);
            t += random.nextInt(maxGapNs);
            requests.add(new RequestSpec(i, t, blocks * 16L + 5, 1 + random.nextInt(3), chain));
        }
        return requests;
    }
}
