package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.l2.L2Ring;

/**
 * The reference ring and the model's ring make the same allocations and evictions for any sequence
 * of store sizes (the reference is written from the spec text, the model's independently).
 */
class RefRingTest {
    @Test
    void theReferenceRingAllocatesAndEvictsLikeTheModel() {
        qt().withFixedSeed(42).withExamples(500)
                .forAll(integers().between(1, 12), lists().of(integers().between(1, 12)).ofSizeBetween(1, 40))
                .checkAssert((slots, sizes) -> {
                    L2Ring model = new L2Ring(slots);
                    RefRing ref = new RefRing(slots);
                    for (int n : sizes) {
                        L2Ring.Allocation allocation = model.allocate(n);
                        List<RefRing.Run> evicted = new ArrayList<>();
                        RefRing.Run run = ref.allocate(n, evicted);
                        assertEquals(allocation.run() == null, run == null, "allocation of " + n + " in " + slots);
                        assertEquals(render(allocation.evicted()), renderRef(evicted), "evicted by " + n);
                        assertEquals(render(model.runs()), renderRef(ref.runs()), "runs after " + n);
                        for (int s = 0; s < slots; s++) {
                            assertEquals(model.ownerOf(s), ref.ownerOf(s), "owner of slot " + s);
                        }
                    }
                });
    }

    private static List<String> render(List<L2Ring.Run> runs) {
        return runs.stream().map(r -> r.runId() + "@" + r.firstSlot() + "+" + r.slotCount() + (r.skip() ? "s" : "")).toList();
    }

    private static List<String> renderRef(List<RefRing.Run> runs) {
        return runs.stream().map(r -> r.runId() + "@" + r.first() + "+" + r.count() + (r.skip() ? "s" : "")).toList();
    }
}
