package tierlab.model.serving;

import tierlab.model.request.RequestSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.BlockChains;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * I11: the same event sequence replayed into a fresh model gives the identical decision trace,
 * compared by hash. The first run draws its completion order from a seeded generator and
 * records it as (ticket, succeeded) events; the replay delivers exactly those events.
 */
class DecisionTraceReplayTest {
    record Event(long ticket, boolean succeeded) {}

    record Run(long hash, long events, List<Event> delivered, long mismatches) {}

    static StoreSettings storeSettings() {
        return TinyModel.store(20, 200).withStaging(2, true);
    }

    /** Runs the workload; completions come from {@code script} when given, else from a seeded order with read faults. */
    static Run run(long seed, List<Event> script) {
        DecisionTrace trace = new DecisionTrace();
        TieredStore store = new TieredStore(storeSettings(), trace);
        EngineScheduler scheduler = new EngineScheduler(SchedulerSettings.defaults(256).withConcurrency(3), store, trace);
        PayloadLedger ledger = new PayloadLedger(store.settings().geometry().laneBytes(), 1);
        SplittableRandom random = new SplittableRandom(seed);
        long now = 0;
        for (int i = 0; i < 16; i++) {
            scheduler.submit(new RequestSpec(i, now, 5 * 16 + 7, 1 + i % 3, BlockChains.named("p" + (i % 5), 5)), now);
        }
        List<IoOp> pending = new ArrayList<>();
        List<Event> delivered = new ArrayList<>();
        scheduler.tick(now);
        pending.addAll(scheduler.drainOps());
        int next = 0;
        while (!pending.isEmpty()) {
            IoOp op;
            boolean succeeded;
            if (script == null) {
                op = pending.remove(random.nextInt(pending.size()));
                succeeded = !(op instanceof IoOp.L2Read) || random.nextInt(10) != 0;
            } else {
                Event event = script.get(next++);
                op = pending.stream().filter(o -> o.ticket() == event.ticket()).findFirst().orElseThrow(
                        () -> new AssertionError("replay diverged: ticket " + event.ticket() + " is not pending"));
                pending.remove(op);
                succeeded = event.succeeded();
            }
            delivered.add(new Event(op.ticket(), succeeded));
            now += 1_000;
            ledger.apply(op, succeeded);
            scheduler.onCompletion(succeeded ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), now);
            scheduler.tick(now);
            pending.addAll(scheduler.drainOps());
            scheduler.checkInvariants();
        }
        assertTrue(scheduler.allFinished());
        return new Run(trace.hash(), trace.eventCount(), delivered, ledger.mismatches());
    }

    @Test
    void replayingTheRecordedEventsReproducesTheTraceBitForBit() {
        Run recorded = run(2026, null);
        Run replayed = run(0, recorded.delivered());
        assertEquals(recorded.hash(), replayed.hash());
        assertEquals(recorded.events(), replayed.events());
        assertEquals(recorded.delivered(), replayed.delivered());
        assertEquals(0, recorded.mismatches(), "read faults fall back to recompute, never to wrong bytes");
    }

    @Test
    void aDifferentEventOrderGivesADifferentTrace() {
        assertNotEquals(run(2026, null).hash(), run(2027, null).hash());
    }
}
