package tierlab.model.policy;

/**
 * The caller-contract checks every policy makes. A store that inserts a resident key, or touches a
 * key the policy does not hold, has lost track of its own state; failing loudly at that call is far
 * easier to debug than a policy that silently diverges from the store.
 */
final class PolicyPreconditions {

    private PolicyPreconditions() {
    }

    /** {@link ReplacementPolicy#NO_VICTIM} is reserved as the "no victim" answer, so it cannot be a key. */
    static void checkInsertableKey(String policyName, long key) {
        if (key == ReplacementPolicy.NO_VICTIM) {
            throw new IllegalArgumentException(policyName + ": key " + key
                    + " is reserved as NO_VICTIM and cannot be inserted");
        }
    }

    static IllegalStateException alreadyResident(String policyName, long key) {
        return new IllegalStateException(policyName + ": onInsert of key " + key + " which is already resident");
    }

    static IllegalStateException notResident(String policyName, String operation, long key) {
        return new IllegalStateException(policyName + ": " + operation + " of key " + key + " which is not resident");
    }
}
