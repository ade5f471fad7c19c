package tierlab.model.policy;

/**
 * What the built-in policies with their own insert step share: the registry name they answer to,
 * and the caller-contract check every insert makes first ({@link #NO_VICTIM} is reserved as the
 * "no victim" answer, so it is no key) before the policy's own {@link #insert}.
 */
abstract class NamedPolicy implements ReplacementPolicy {

    private final String name;

    NamedPolicy(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void onInsert(long key, long groupId, int positionInGroup) {
        PolicyPreconditions.checkInsertableKey(name, key);
        insert(key, groupId, positionInGroup);
    }

    /** The policy's own insert step ({@link #onInsert}'s contract), for a key that is not {@link #NO_VICTIM}. */
    abstract void insert(long key, long groupId, int positionInGroup);
}
