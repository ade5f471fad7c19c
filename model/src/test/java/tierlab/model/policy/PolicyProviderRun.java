package tierlab.model.policy;

import java.util.ArrayList;
import java.util.List;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;

/**
 * What {@link PolicyProviderTest} runs inside a class loader that sees the provider's service file:
 * the registry's names, a cache replay and a store, each asking for the provided policy by name.
 * Answers in JDK types only, since the caller's loader has its own copies of these classes.
 */
public final class PolicyProviderRun {
    private PolicyProviderRun() {
    }

    /** The registry's names (the first use of {@link Policies} in the caller's loader builds it). */
    public static List<String> names() {
        return Policies.names();
    }

    /** The policy names, then the replay's hits and misses, then per policy the store's answers. */
    public static List<String> run() {
        List<String> facts = new ArrayList<>();
        facts.add(String.join(",", Policies.names()));
        // Capacity 2 over the cycle 1 2 3 1 2 3 1 2: MRU keeps 1 while 2 and 3 take turns (worked out in the test).
        long[] cycle = {1, 2, 3, 1, 2, 3, 1, 2};
        ReplayResult replay = CacheReplay.run(Policies.create(MruTestPolicy.NAME, PolicyOptions.defaults(2)), 2, cycle, true);
        facts.add(replay.hits() + "/" + replay.misses());
        facts.add(store(MruTestPolicy.NAME));
        facts.add(Long.toString(MruTestPolicy.victimSearches));
        facts.add(store(LruPolicy.NAME));
        return facts;
    }

    /**
     * Saves six 4-block prompts one after another into an L1 of 8 blocks (every operation completed in
     * order, invariants after each), then says which prompts L1 still holds whole.
     */
    private static String store(String policy) {
        StoreSettings settings = TinyModel.store(8, 64).withPolicy(policy);
        TieredStore store = new TieredStore(settings);
        long nowNs = 0;
        List<List<BlockKey>> chains = new ArrayList<>();
        for (int prompt = 0; prompt < 6; prompt++) {
            List<BlockKey> chain = BlockChains.named("p" + prompt, 4);
            chains.add(chain);
            List<Long> gpuBlocks = List.of(prompt * 4L, prompt * 4L + 1, prompt * 4L + 2, prompt * 4L + 3);
            store.enqueueSave(prompt, chain, 0, chain.size(), gpuBlocks, nowNs);
            for (List<IoOp> ops = store.drainOps(); !ops.isEmpty(); ops = store.drainOps()) {
                for (IoOp op : ops) {
                    nowNs += 1_000;
                    store.onCompletion(IoCompletion.ok(op.ticket()), nowNs);
                    store.checkInvariants();
                }
            }
            store.drainEvents();
        }
        StringBuilder inL1 = new StringBuilder();
        for (int prompt = 0; prompt < chains.size(); prompt++) {
            List<BlockKey> chain = chains.get(prompt);
            if (store.classify(chain, 0, chain.size() * 16L + 1) == tierlab.model.store.LookupResult.HitClass.L1) {
                inL1.append('p').append(prompt);
            }
        }
        return inL1.toString();
    }
}
