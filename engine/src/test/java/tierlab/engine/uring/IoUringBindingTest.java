package tierlab.engine.uring;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static tierlab.engine.uring.IoUringLayout.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The binding against the kernel: the hand-written offsets against the header's struct layouts,
 * the offsets the kernel reports through a real ring, and raw READ/WRITE round trips.
 */
class IoUringBindingTest {

    private static long offset(StructLayout layout, String... path) {
        return switch (path.length) {
            case 1 -> layout.byteOffset(groupElement(path[0]));
            case 2 -> layout.byteOffset(groupElement(path[0]), groupElement(path[1]));
            default -> throw new IllegalArgumentException();
        };
    }

    @Test
    void paramsIs120BytesWithTheOffsetsOfTheHeader() {
        assertEquals(PARAMS_SIZE, PARAMS.byteSize());
        assertEquals(120, PARAMS_SIZE);
        assertEquals(PARAMS_SQ_ENTRIES, offset(PARAMS, "sq_entries"));
        assertEquals(PARAMS_CQ_ENTRIES, offset(PARAMS, "cq_entries"));
        assertEquals(PARAMS_FLAGS, offset(PARAMS, "flags"));
        assertEquals(PARAMS_SQ_THREAD_CPU, offset(PARAMS, "sq_thread_cpu"));
        assertEquals(PARAMS_SQ_THREAD_IDLE, offset(PARAMS, "sq_thread_idle"));
        assertEquals(PARAMS_FEATURES, offset(PARAMS, "features"));
        assertEquals(20, PARAMS_FEATURES);
        assertEquals(PARAMS_WQ_FD, offset(PARAMS, "wq_fd"));
        assertEquals(PARAMS_SQ_OFF, offset(PARAMS, "sq_off"));
        assertEquals(40, PARAMS_SQ_OFF);
        assertEquals(PARAMS_CQ_OFF, offset(PARAMS, "cq_off"));
        assertEquals(80, PARAMS_CQ_OFF);
        assertEquals(40, SQ_OFFSETS.byteSize());
        assertEquals(40, CQ_OFFSETS.byteSize());
    }

    @Test
    void ringOffsetStructsMatchTheHeader() {
        assertEquals(SQ_OFF_HEAD, offset(SQ_OFFSETS, "head"));
        assertEquals(SQ_OFF_TAIL, offset(SQ_OFFSETS, "tail"));
        assertEquals(SQ_OFF_RING_MASK, offset(SQ_OFFSETS, "ring_mask"));
        assertEquals(SQ_OFF_RING_ENTRIES, offset(SQ_OFFSETS, "ring_entries"));
        assertEquals(SQ_OFF_FLAGS, offset(SQ_OFFSETS, "flags"));
        assertEquals(SQ_OFF_DROPPED, offset(SQ_OFFSETS, "dropped"));
        assertEquals(SQ_OFF_ARRAY, offset(SQ_OFFSETS, "array"));
        assertEquals(24, SQ_OFF_ARRAY);
        assertEquals(CQ_OFF_HEAD, offset(CQ_OFFSETS, "head"));
        assertEquals(CQ_OFF_TAIL, offset(CQ_OFFSETS, "tail"));
        assertEquals(CQ_OFF_RING_MASK, offset(CQ_OFFSETS, "ring_mask"));
        assertEquals(CQ_OFF_RING_ENTRIES, offset(CQ_OFFSETS, "ring_entries"));
        assertEquals(CQ_OFF_OVERFLOW, offset(CQ_OFFSETS, "overflow"));
        assertEquals(CQ_OFF_CQES, offset(CQ_OFFSETS, "cqes"));
        assertEquals(20, CQ_OFF_CQES);
    }

    @Test
    void sqeIs64BytesAndCqeIs16() {
        assertEquals(SQE_SIZE, SQE.byteSize());
        assertEquals(64, SQE_SIZE);
        assertEquals(SQE_OPCODE, offset(SQE, "opcode"));
        assertEquals(SQE_FLAGS, offset(SQE, "flags"));
        assertEquals(SQE_IOPRIO, offset(SQE, "ioprio"));
        assertEquals(SQE_FD, offset(SQE, "fd"));
        assertEquals(SQE_OFF, offset(SQE, "off"));
        assertEquals(SQE_ADDR, offset(SQE, "addr"));
        assertEquals(SQE_LEN, offset(SQE, "len"));
        assertEquals(SQE_RW_FLAGS, offset(SQE, "rw_flags"));
        assertEquals(SQE_USER_DATA, offset(SQE, "user_data"));
        assertEquals(SQE_BUF_INDEX, offset(SQE, "buf_index"));
        assertEquals(SQE_PERSONALITY, offset(SQE, "personality"));
        assertEquals(SQE_FILE_INDEX, offset(SQE, "file_index"));
        assertEquals(SQE_ADDR3, offset(SQE, "addr3"));
        assertEquals(CQE_SIZE, CQE.byteSize());
        assertEquals(16, CQE_SIZE);
        assertEquals(CQE_USER_DATA, offset(CQE, "user_data"));
        assertEquals(CQE_RES, offset(CQE, "res"));
        assertEquals(CQE_FLAGS, offset(CQE, "flags"));
    }

    @Test
    void theProbeReportsAvailabilityOrACause() {
        IoUringProbe probe = UringAvailability.run();
        System.out.println(probe);
        if (probe.available()) {
            assertNull(probe.cause());
            assertTrue(probe.toString().contains("available"));
        } else {
            assertTrue(probe.cause() != null && !probe.cause().isBlank(), "an unavailable probe says why");
        }
        assertEquals(probe.available(), UringAvailability.probe().available(), "the cached probe agrees");
    }

    @Test
    void theKernelFillsTheRingOffsetsWeReadThroughTheMapping() throws NativeIoException {
        assumeIoUring();
        try (IoUring ring = IoUring.create(5, 0)) { // rounded up to a power of two
            assertEquals(8, ring.sqEntries());
            assertEquals(16, ring.cqEntries());
            assertEquals(7, ring.sqMask(), "sq_off.ring_mask is where the mask lives, read through the mapping");
            assertEquals(15, ring.cqMask());
            assertEquals(ring.sqEntries(), ring.sqRingEntriesInMapping(), "sq_off.ring_entries");
            assertEquals(ring.cqEntries(), ring.cqRingEntriesInMapping(), "cq_off.ring_entries");
            for (int i = 0; i < ring.sqEntries(); i++) {
                assertEquals(i, ring.sqArrayEntry(i), "the identity SQ array");
            }
            assertEquals(8, ring.sqSpaceLeft());
            assertEquals(0, ring.cqReady());
            assertEquals(0, ring.cqOverflow());
            System.out.println("features 0x" + Integer.toHexString(ring.features()) + ", single mmap " + ring.singleMmap());
        }
    }

    @Test
    void nopsRoundTripTheirUserDataThroughTheRing() throws NativeIoException {
        assumeIoUring();
        try (IoUring ring = IoUring.createForSingleThread(8)) {
            for (int round = 0; round < 5; round++) { // several laps around the 8-slot ring
                for (int i = 0; i < 6; i++) {
                    ring.prepareNop(round * 100L + i);
                }
                int toSubmit = ring.publishSq();
                assertEquals(6, toSubmit);
                assertEquals(6, ring.enter(toSubmit, 6, IORING_ENTER_GETEVENTS));
                assertEquals(6, ring.cqReady());
                for (int i = 0; i < 6; i++) {
                    assertEquals(round * 100L + i, ring.cqeUserData(i));
                    assertEquals(0, ring.cqeResult(i));
                }
                ring.cqAdvance(6);
                assertEquals(0, ring.cqReady());
                assertEquals(0, ring.sqDropped());
            }
        }
    }

    @Test
    void preparingIntoAFullSubmissionQueueIsRefusedInsteadOfOverwritingAnUnconsumedEntry() throws NativeIoException {
        assumeIoUring();
        try (IoUring ring = IoUring.createForSingleThread(8)) {
            for (int i = 0; i < ring.sqEntries(); i++) {
                ring.prepareNop(i);
            }
            assertEquals(0, ring.sqSpaceLeft());
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> ring.prepareNop(99));
            assertTrue(full.getMessage().startsWith("io_uring SQ full: 8 entries"), full.getMessage());
            // Once the kernel has consumed them the slots are free again, and the refused NOP was never written.
            int toSubmit = ring.publishSq();
            assertEquals(8, ring.enter(toSubmit, 8, IORING_ENTER_GETEVENTS));
            assertEquals(8, ring.cqReady());
            for (int i = 0; i < 8; i++) {
                assertEquals(i, ring.cqeUserData(i));
            }
            ring.cqAdvance(8);
            ring.prepareNop(100);
            assertEquals(1, ring.enter(ring.publishSq(), 1, IORING_ENTER_GETEVENTS));
            assertEquals(100, ring.cqeUserData(0));
            ring.cqAdvance(1);
        }
    }

    @Test
    void rawReadsAndWritesMoveBytesAndAMisalignedReadIsEinval() throws Exception {
        assumeIoUring();
        Path dir = Files.createDirectories(Path.of("target", "l2-test-files"));
        Path file = Files.createTempFile(dir, "raw-", ".bin");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.createForSingleThread(8)) {
            MemorySegment state = Libc.newErrnoState(arena);
            int fd = Libc.open(state, arena.allocateFrom(file.toString()), Libc.O_RDWR | Libc.O_DIRECT | Libc.O_CLOEXEC, 0);
            assertTrue(fd >= 0, () -> "open O_DIRECT: " + Errno.name(Libc.errno(state)));
            try {
                MemorySegment buffers = arena.allocate(4 * 4096, 4096);
                byte[] payload = new byte[8192];
                new SplittableRandom(1).nextBytes(payload);
                MemorySegment.copy(payload, 0, buffers, ValueLayout.JAVA_BYTE, 0, payload.length);

                ring.prepareReadWrite(IORING_OP_WRITE, fd, 4096, buffers.address(), 8192, 1, 0);
                assertEquals(1, ring.enter(ring.publishSq(), 1, IORING_ENTER_GETEVENTS));
                assertEquals(8192, ring.cqeResult(0));
                ring.cqAdvance(1);

                // Register the second half as a fixed buffer and read back into it.
                ring.registerBuffers(new long[] {buffers.address() + 8192}, new long[] {8192});
                ring.prepareReadWrite(IORING_OP_READ_FIXED, fd, 4096, buffers.address() + 8192, 8192, 2, 0);
                // And a misaligned plain read: O_DIRECT answers -EINVAL in the CQE.
                ring.prepareReadWrite(IORING_OP_READ, fd, 4096, buffers.address() + 1, 4096, 3, 0);
                assertEquals(2, ring.enter(ring.publishSq(), 2, IORING_ENTER_GETEVENTS));
                int ready = ring.cqReady();
                assertEquals(2, ready);
                for (int i = 0; i < ready; i++) {
                    if (ring.cqeUserData(i) == 2) {
                        assertEquals(8192, ring.cqeResult(i));
                    } else {
                        assertEquals(3, ring.cqeUserData(i));
                        assertEquals(-Errno.EINVAL, ring.cqeResult(i));
                    }
                }
                ring.cqAdvance(ready);
                byte[] back = new byte[8192];
                MemorySegment.copy(buffers, ValueLayout.JAVA_BYTE, 8192, back, 0, back.length);
                assertArrayEquals(payload, back);
                ring.unregisterBuffers();
                assertEquals(0, ring.registeredBufferCount());
            } finally {
                Libc.close(state, fd);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aRefusedSetupNamesTheCallAndTheErrno() {
        assumeIoUring();
        NativeIoException e = assertThrows(NativeIoException.class, () -> IoUring.create(0, 0));
        assertEquals("EINVAL", e.errnoName());
        assertTrue(e.getMessage().startsWith("io_uring_setup(0, flags=0x0) failed: EINVAL"), e.getMessage());
    }

    @Test
    void errnoNamesFollowTheLinuxTable() {
        assertEquals("EINVAL", Errno.name(22));
        assertEquals("EIO", Errno.name(-5));
        assertEquals("EBADF", Errno.name(Errno.EBADF));
        assertEquals("EFBIG", Errno.name(27));
        assertEquals("EHWPOISON", Errno.name(133));
        assertEquals("E41", Errno.name(41));
        assertEquals("E999", Errno.name(999));
        assertEquals(22, Errno.number("EINVAL"));
        assertEquals(-1, Errno.number(Errno.ESHORT));
        assertEquals("Invalid argument", Libc.describe(22));
    }

    private static void assumeIoUring() {
        IoUringProbe probe = UringAvailability.probe();
        Assumptions.assumeTrue(probe.available(), () -> "io_uring unavailable: " + probe.cause());
    }
}
