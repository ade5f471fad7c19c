package tierlab.model.policy;

import java.util.List;
import tierlab.model.Registry;

/** Registers a second {@code lru}: the registry must refuse it at start-up, naming both registrations. */
public final class DuplicatePolicyProvider implements PolicyProvider {
    @Override
    public List<Registry.Entry<PolicyKind>> entries() {
        return PolicyProvider.entriesOf(PolicyKind.plain(LruPolicy.NAME, "a second lru", options -> new LruPolicy()));
    }
}
