package tierlab.model.policy;

import tierlab.model.util.OffsetTable;

/** Invariant checks shared by the policies built from {@link KeyList}s and one lookup table. */
final class PolicyLists {

    private PolicyLists() {
    }

    /**
     * Checks every list's links, that the lookup table points at exactly the nodes on the lists
     * (resident or ghost), and nothing else.
     */
    static void checkLookup(String policyName, OffsetTable<KeyNode> nodesByKey, KeyList... lists) {
        long listed = 0;
        for (KeyList list : lists) {
            list.checkInvariants();
            for (KeyNode node = list.oldest(); node != null; node = list.newerThan(node)) {
                if (nodesByKey.get(node.key) != node) {
                    throw new IllegalStateException(policyName + ": key " + node.key
                            + " is on a list but the lookup table points elsewhere");
                }
            }
            listed += list.size();
        }
        if (nodesByKey.size() != listed) {
            throw new IllegalStateException(policyName + ": lookup table holds " + nodesByKey.size()
                    + " keys but the lists hold " + listed);
        }
    }
}
