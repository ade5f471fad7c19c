package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;

/** The payload pattern: what fill writes, word() says and matches accepts, and every kind of wrong bytes it refuses. */
class PayloadPatternTest {
    private static final BlockKey KEY = new BlockKey(0x0123_4567_89ab_cdefL, 0x7edc_ba98_7654_3210L);
    private static final BlockKey OTHER = new BlockKey(0x0123_4567_89ab_cdefL, 0x7edc_ba98_7654_3211L);
    /** Three full pages and a partial one of 3 words: the last page is shorter than a template. */
    private static final long LANE_BYTES = 3 * PayloadPattern.pageBytes() + 24;

    @Test
    void fillWritesWordAtEveryIndexAndMatchesAcceptsIt() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lane = arena.allocate(LANE_BYTES);
            PayloadPattern.fill(lane, KEY, 1);
            for (long i = 0; i < LANE_BYTES / Long.BYTES; i++) {
                assertEquals(PayloadPattern.word(KEY, 1, i), lane.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i), "word " + i);
            }
            assertTrue(PayloadPattern.matches(lane, KEY, 1));
        }
    }

    @Test
    void everyWordDependsOnKeyLaneAndIndex() {
        long words = LANE_BYTES / Long.BYTES;
        for (long i = 0; i < words; i++) {
            long word = PayloadPattern.word(KEY, 0, i);
            assertNotEquals(word, PayloadPattern.word(OTHER, 0, i), "another key at word " + i);
            assertNotEquals(word, PayloadPattern.word(KEY, 1, i), "another lane at word " + i);
            assertNotEquals(word, PayloadPattern.word(KEY, 0, (i + PayloadPattern.PAGE_WORDS) % words), "another page at word " + i);
            assertNotEquals(word, PayloadPattern.word(KEY, 0, (i + 1) % words), "the next word at word " + i);
            assertNotEquals(0L, word, "word " + i);
        }
    }

    @Test
    void refusesAnotherKeyAnotherLaneATornPageASwappedSectorAndOneFlippedBit() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lane = arena.allocate(LANE_BYTES);
            MemorySegment other = arena.allocate(LANE_BYTES);
            PayloadPattern.fill(lane, KEY, 0);
            assertFalse(PayloadPattern.matches(lane, OTHER, 0), "another key");
            assertFalse(PayloadPattern.matches(lane, KEY, 1), "another lane");

            // A torn read: the second page comes from another block's payload.
            PayloadPattern.fill(other, OTHER, 0);
            MemorySegment.copy(other, PayloadPattern.pageBytes(), lane, PayloadPattern.pageBytes(), PayloadPattern.pageBytes());
            assertFalse(PayloadPattern.matches(lane, KEY, 0), "torn page");

            // A misplaced sector: the third page's second 512-byte sector holds the first page's.
            PayloadPattern.fill(lane, KEY, 0);
            MemorySegment.copy(lane, 512, lane, 2 * PayloadPattern.pageBytes() + 512, 512);
            assertFalse(PayloadPattern.matches(lane, KEY, 0), "misplaced sector");

            // One bit in the short last page.
            PayloadPattern.fill(lane, KEY, 0);
            long last = LANE_BYTES / Long.BYTES - 1;
            lane.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, last, lane.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, last) ^ 1);
            assertFalse(PayloadPattern.matches(lane, KEY, 0), "flipped bit in the last word");

            // Zeros (a buffer nobody wrote) never match.
            lane.fill((byte) 0);
            assertFalse(PayloadPattern.matches(lane, KEY, 0), "zeros");
        }
    }
}
