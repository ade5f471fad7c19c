package tierlab.model.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fixed-arity record forms hash, count and log exactly as the varargs form does. */
class DecisionTraceTest {

    /** Records the same events through the fixed-arity overloads (as the model's call sites do). */
    private static void fixed(DecisionTrace trace) {
        trace.record("none");
        trace.record("one", 1);
        trace.record("two", 1, -2);
        trace.record("three", 1, 2, Long.MAX_VALUE);
        trace.record("four", 1, 2, 3, Long.MIN_VALUE);
        trace.record("five", 5, 4, 3, 2, 1);
        trace.record("six", 6, 5, 4, 3, 2, 1);
        trace.record("seven", 7, 6, 5, 4, 3, 2, 1);
    }

    /** The same events, every one through the varargs form. */
    private static void varargs(DecisionTrace trace) {
        trace.record("none", new long[0]);
        trace.record("one", new long[] {1});
        trace.record("two", new long[] {1, -2});
        trace.record("three", new long[] {1, 2, Long.MAX_VALUE});
        trace.record("four", new long[] {1, 2, 3, Long.MIN_VALUE});
        trace.record("five", new long[] {5, 4, 3, 2, 1});
        trace.record("six", new long[] {6, 5, 4, 3, 2, 1});
        trace.record("seven", new long[] {7, 6, 5, 4, 3, 2, 1});
    }

    @Test
    void fixedArityFormsHashAndCountAsTheVarargsForm() {
        DecisionTrace viaFixed = new DecisionTrace();
        DecisionTrace viaVarargs = new DecisionTrace();
        fixed(viaFixed);
        varargs(viaVarargs);
        assertEquals(viaVarargs.hash(), viaFixed.hash());
        assertEquals(8, viaFixed.eventCount());
        assertEquals(8, viaVarargs.eventCount());
    }

    @Test
    void everyArgumentAndItsOrderChangeTheHash() {
        DecisionTrace reference = new DecisionTrace();
        reference.record("six", 6, 5, 4, 3, 2, 1);
        DecisionTrace swapped = new DecisionTrace();
        swapped.record("six", 6, 5, 4, 3, 1, 2);
        DecisionTrace otherKind = new DecisionTrace();
        otherKind.record("sIx", 6, 5, 4, 3, 2, 1);
        assertNotEquals(reference.hash(), swapped.hash());
        assertNotEquals(reference.hash(), otherKind.hash());
    }

    @Test
    void fixedArityFormsFeedTheTextLogAndTheListenerWithTheirValues() {
        List<String> kinds = new ArrayList<>();
        List<long[]> values = new ArrayList<>();
        DecisionTrace logged = new DecisionTrace(3, (kind, v) -> {
            kinds.add(kind);
            values.add(v);
        });
        fixed(logged);
        assertEquals(List.of("five 5 4 3 2 1", "six 6 5 4 3 2 1", "seven 7 6 5 4 3 2 1"), logged.recent());
        assertEquals(List.of("none", "one", "two", "three", "four", "five", "six", "seven"), kinds);
        assertArrayEquals(new long[0], values.get(0));
        assertArrayEquals(new long[] {1, 2, 3, Long.MIN_VALUE}, values.get(4));
        assertArrayEquals(new long[] {6, 5, 4, 3, 2, 1}, values.get(6));
        DecisionTrace plain = new DecisionTrace();
        fixed(plain);
        assertEquals(plain.hash(), logged.hash());
    }
}
