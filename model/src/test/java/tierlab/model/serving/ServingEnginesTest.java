package tierlab.model.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** The serving-engine registry, and the second engine driven through the port alone. */
class ServingEnginesTest {
    private static StoreSettings store(long l1Blocks, long l2Blocks) {
        return TinyModel.store(l1Blocks, l2Blocks);
    }

    @Test
    void anUnknownEngineIsOneLineNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServingEngines.kind("trtllm"));
        assertEquals("scheduler.engine: unknown serving engine 'trtllm' (known: vllm, serial, vllm-v1, sglang)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SchedulerSettings.defaults(64).withEngine(" "));
    }

    @Test
    void settingsNameTheEngineAndARestartCreatesTheSameKind() {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(store(64, 256), trace);
        assertInstanceOf(EngineScheduler.class, ServingEngines.create(SchedulerSettings.defaults(512), store, trace),
                "the default is the vLLM-like engine");
        ServingEngine serial = ServingEngines.create(SchedulerSettings.defaults(512).withEngine("serial"), store, trace);
        assertInstanceOf(SerialEngine.class, serial);
        ServingEngine restarted = ServingEngines.restart(serial, new TieredStore(store(64, 256), trace), trace);
        assertInstanceOf(SerialEngine.class, restarted);
        assertEquals(serial.settings(), restarted.settings());
    }

    @Test
    void theSerialEngineServesColdThenWarmFromTheStoreWithTheRightBytes() {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(store(24, 512), trace);
        EngineHarness h = new EngineHarness(ServingEngines.create(SchedulerSettings.defaults(512).withEngine(ServingEngines.SERIAL),
                store, trace));
        for (int i = 0; i < 6; i++) {
            h.submit(i, 8 * 16 + 3, 3, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(100_000);
        assertEquals(6, h.scheduler.finishedCount());
        assertEquals(6 * (8 * 16 + 3), h.scheduler.computedPromptTokens(), "the cold pass computes every prompt token");
        for (int i = 0; i < 6; i++) {
            h.submit(100 + i, 8 * 16 + 3, 3, BlockChains.named("p" + i, 8));
        }
        h.runToQuiescence(100_000);
        assertTrue(h.scheduler.allFinished());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 100L, 101L, 102L, 103L, 104L, 105L), h.scheduler.finishedIds(),
                "one at a time, first come first served");
        List<RequestOutcome> warm = h.scheduler.finished().stream().filter(o -> o.requestId() >= 100).toList();
        assertTrue(warm.stream().allMatch(o -> o.hitClass() != HitClass.MISS && o.hitTokens() == 8 * 16), warm.toString());
        assertTrue(store.counter(StoreCounter.L2_READ_OPS) > 0, "L1 holds 24 of the 48 blocks: the warm pass reads L2");
        assertEquals(6 * 8, h.ledger.loadMatches(), "every loaded block carried its key's bytes");
        assertEquals(0, h.ledger.mismatches(), h.ledger.mismatchExamples().toString());
        assertEquals(512, h.scheduler.freeGpuBlockCount());
        assertTrue(store.leftovers().isEmpty(), store.leftovers().toString());
        assertEquals(0, h.scheduler.prefetchCalls() + h.scheduler.deferrals() + h.scheduler.preemptions());
    }

    /**
     * A request whose chain names fewer keys than its prompt's full blocks (a trace line
     * whose hash_ids cover less than its input) was accepted and ended the run mid-step with an
     * ArrayIndexOutOfBoundsException; both engines now refuse it at submission, naming the request.
     */
    @Test
    void aChainShorterThanThePromptIsRefusedAtSubmission() {
        for (String kind : List.of(ServingEngines.VLLM, ServingEngines.SERIAL)) {
            DecisionTrace trace = new DecisionTrace();
            ServingEngine engine = ServingEngines.create(SchedulerSettings.defaults(1_000).withEngine(kind),
                    new TieredStore(store(64, 256), trace), trace);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> engine.submit(new RequestSpec(7, 0, 5 * 16 + 3, 1, BlockChains.named("short", 2)), 0));
            assertEquals("request 7: its prompt of 83 tokens fills 5 blocks of 16 but its chain names only 2 block keys",
                    refused.getMessage(), kind);
            assertEquals(0, engine.waitingCount(), kind + ": nothing was queued");
            engine.submit(new RequestSpec(8, 0, 5 * 16 + 3, 1, BlockChains.named("whole", 5)), 0);
            engine.checkInvariants();
        }
    }
}
