package tierlab.model.policy;

import java.util.List;
import tierlab.model.Registry;

/** Adds {@link MruTestPolicy} to the policy registry (named by the service file the provider test writes). */
public final class TestPolicyProvider implements PolicyProvider {
    @Override
    public List<Registry.Entry<PolicyKind>> entries() {
        return PolicyProvider.entriesOf(PolicyKind.plain(MruTestPolicy.NAME, "most recently used first (a test policy)",
                options -> new MruTestPolicy()));
    }
}
