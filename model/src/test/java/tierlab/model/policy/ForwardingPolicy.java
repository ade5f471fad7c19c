package tierlab.model.policy;

import java.util.function.LongPredicate;

/**
 * A policy that hands every call to another one; test wrappers override the one or two calls they
 * watch (invariant checks counted, the largest size seen, a victim refused) and keep the rest.
 */
abstract class ForwardingPolicy implements ReplacementPolicy {
    final ReplacementPolicy delegate;

    ForwardingPolicy(ReplacementPolicy delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public void onInsert(long key, long groupId, int positionInGroup) {
        delegate.onInsert(key, groupId, positionInGroup);
    }

    @Override
    public void onAccess(long key) {
        delegate.onAccess(key);
    }

    @Override
    public void onRemove(long key) {
        delegate.onRemove(key);
    }

    @Override
    public long selectVictim(LongPredicate evictable) {
        return delegate.selectVictim(evictable);
    }

    @Override
    public boolean contains(long key) {
        return delegate.contains(key);
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public void checkInvariants() {
        delegate.checkInvariants();
    }
}
