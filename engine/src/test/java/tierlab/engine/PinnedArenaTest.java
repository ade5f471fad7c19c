package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PinnedArenaTest {

    @Test
    void theBaseIs4096AlignedAndSlicesAreBoundsChecked() {
        try (PinnedArena arena = PinnedArena.allocate(1 << 20)) {
            assertEquals(0, arena.baseAddress() % PinnedArena.ALIGNMENT_BYTES);
            assertEquals(1 << 20, arena.sizeBytes());
            arena.slice(4096, 8192).set(ValueLayout.JAVA_LONG, 0, 42L);
            assertEquals(42L, arena.segment().get(ValueLayout.JAVA_LONG, 4096));
            assertEquals(0, arena.slice(0, 4096).address() % 4096);
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> arena.slice((1 << 20) - 4096, 8192));
            assertTrue(e.getMessage().contains("outside the arena of 1048576 bytes"), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> arena.slice(-4096, 4096));
            assertFalse(arena.contains(Long.MAX_VALUE, 4096));
        }
    }

    @Test
    void theAddressGivenToTheKernelOrTheDriverIsBoundsChecked() {
        try (PinnedArena arena = PinnedArena.allocate(1 << 20)) {
            assertEquals(arena.baseAddress() + 8192, arena.address(8192, 4096));
            assertEquals(arena.baseAddress() + (1 << 20) - 4096, arena.address((1 << 20) - 4096, 4096), "the last page fits");
            // One byte past the end, a negative offset, a negative length: an address outside the arena is never handed out.
            IndexOutOfBoundsException past = assertThrows(IndexOutOfBoundsException.class,
                    () -> arena.address((1 << 20) - 4096, 4097));
            assertTrue(past.getMessage().contains("1048576"), past.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> arena.address(-4096, 4096));
            assertThrows(IndexOutOfBoundsException.class, () -> arena.address(0, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> arena.address(Long.MAX_VALUE - 10, 4096), "no overflow past the check");
        }
    }

    @Test
    void theLockStatusSaysWhetherAndWhy() {
        try (PinnedArena arena = PinnedArena.allocate(2 << 20)) {
            PinnedArena.LockStatus status = arena.lockStatus();
            System.out.println("arena lock: " + status);
            // Either way the reason names the outcome; an unprivileged machine is not an error.
            assertTrue(status.locked() ? status.reason().startsWith("mlocked 2 MiB") : status.reason().contains("RLIMIT_MEMLOCK")
                    || status.reason().contains("unavailable"), status.reason());
        }
        try (PinnedArena unlocked = PinnedArena.allocate(4096, false)) {
            assertFalse(unlocked.lockStatus().locked());
            assertEquals("mlock not requested", unlocked.lockStatus().reason());
        }
    }

    @Test
    void sizesMustBePositiveMultiplesOf4096() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PinnedArena.allocate(5000));
        assertTrue(e.getMessage().contains("sizeBytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PinnedArena.allocate(0));
    }

    @Test
    void closeRefusesWhileAUserRemainsAndIsIdempotentAfter() {
        PinnedArena arena = PinnedArena.allocate(8192);
        arena.retain("test backend");
        IllegalStateException e = assertThrows(IllegalStateException.class, arena::close);
        assertTrue(e.getMessage().contains("test backend"), e.getMessage());
        arena.release("test backend");
        arena.close();
        arena.close();
        assertThrows(IllegalStateException.class, () -> arena.retain("late"));
    }
}
