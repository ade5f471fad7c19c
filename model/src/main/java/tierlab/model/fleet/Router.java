package tierlab.model.fleet;

import java.util.List;
import tierlab.model.request.RequestSpec;

/**
 * A fleet's router: picks the instance an arriving request goes to, from what it sees of every
 * instance at that instant. A router may keep state of its own (round-robin's turn) but reads no
 * clock and draws nothing random, so a run's choices follow from its inputs alone; ties go to the
 * lowest instance index.
 */
public interface Router {

    /**
     * The index of the instance {@code request} goes to.
     *
     * @param instances one view per instance, in index order (never empty)
     * @param blockTokens tokens per KV block, the unit of the views' prefix and KV counts
     */
    int route(RequestSpec request, List<InstanceView> instances, int blockTokens);

    /** Whether the router reads the views' prefix counts (the fleet skips the walks otherwise). */
    default boolean readsPrefixes() {
        return false;
    }
}
