package tierlab.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.sim.scenario.AdmissionShortcutCrossCheckTest.overloadedRequests;
import static tierlab.sim.scenario.AdmissionShortcutCrossCheckTest.replay;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngines;
import tierlab.sim.scenario.AdmissionShortcutCrossCheckTest.Replay;

/**
 * vllm-v1 keeps the admission shortcuts of the vllm engine (a parked request's witness, the skipped run
 * of parked requests), although its GPU prefix cache moves where a parked request's store lookup starts:
 * the witness is re-derived when the start moved, and a run is skipped only when the GPU pool has not
 * changed since the pass that found it. On the overloaded Mooncake replay every shortcut answer is
 * recomputed the slow way (which throws on the first disagreement) and the decisions are the same as
 * without the cross-check, while the GPU cache serves and evicts.
 */
class VllmV1AdmissionShortcutTest {

    @Test
    void everyShortcutAnswerMatchesTheSlowPathWithTheGpuPrefixCacheOn() {
        List<RequestSpec> requests = overloadedRequests(800);
        Replay plain = replay(ServingEngines.VLLM_V1, requests, false);
        Replay checked = replay(ServingEngines.VLLM_V1, requests, true);
        assertEquals(plain.hash(), checked.hash(), "the cross-check changes no decision");
        assertEquals(800, checked.outcomes().size());
        assertEquals(plain.outcomes(), checked.outcomes());
        assertTrue(checked.engine().parkedSkips() > 1_000 && checked.engine().runSkips() > 100,
                "the replay parks requests, so the shortcuts are exercised: " + checked.engine().parkedSkips() + " parked skips, "
                        + checked.engine().runSkips() + " run skips");
        long gpuCached = checked.outcomes().stream().mapToLong(RequestOutcome::gpuCachedTokens).sum();
        assertTrue(gpuCached > 0 && checked.engine().gpuBlocksEvicted() > 0,
                "the GPU cache serves (" + gpuCached + " tokens) and evicts (" + checked.engine().gpuBlocksEvicted() + " blocks)");
    }
}
