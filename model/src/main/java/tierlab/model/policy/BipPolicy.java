package tierlab.model.policy;

/**
 * Bimodal insertion (Qureshi et al., ISCA'07): LRU order, but most new keys enter at the
 * least-recent end, so a key has to be used again before it can displace the working set. That is
 * what makes a scan or a loop larger than the cache keep part of its keys instead of none.
 *
 * <p>Which insertions go to the most-recent end is decided by a counter, not by chance, so runs
 * are reproducible: the 1st, the (1 + mruInterval)-th, the (1 + 2·mruInterval)-th ... insertion
 * (with the default interval of 32: the 1st, 33rd, 65th ...). With {@code mruInterval} 1 every
 * insertion goes to the most-recent end and the policy behaves exactly like {@code lru}.
 * An access always moves the key to the most-recent end.
 */
public final class BipPolicy extends RecencyListPolicy {

    public static final String NAME = "bip";

    /** One insertion in this many goes to the most-recent end [32]; 1 makes bip behave as lru. */
    public static final PolicyParameter<Integer> MRU_INTERVAL = PolicyParameter.atLeast("mruInterval", 32, 1,
            "one insertion in this many enters at the most-recent end");

    private final int mruInterval;
    private long insertions;

    public BipPolicy(int mruInterval) {
        super(NAME);
        if (mruInterval < 1) {
            throw new IllegalArgumentException("mruInterval must be >= 1, was " + mruInterval);
        }
        this.mruInterval = mruInterval;
    }

    public int mruInterval() {
        return mruInterval;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        // The count is taken before this insertion, so insertion number 1 (count 0) goes to the
        // most-recent end, then every mruInterval-th one after it.
        boolean atMostRecent = insertions % mruInterval == 0;
        recency.insert(key, atMostRecent);
        insertions++;
    }

    @Override
    public void checkInvariants() {
        super.checkInvariants();
        if (insertions < 0) {
            throw new IllegalStateException(NAME + ": insertion counter overflowed");
        }
    }
}
