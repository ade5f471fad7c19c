package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import tierlab.engine.BlockingStorage;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.FileChannelSettings;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.IoUringProbe;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/**
 * Differential properties: two implementations that must agree, on generated inputs.
 *
 * <ul>
 *   <li>Sim vs. hybrid: for timing-independent workloads (each request arrives after the previous
 *       one finished) the sim run and the hybrid run on a real file make the same hit/miss
 *       decision for every block of every request, and hybrid serves no wrong byte.</li>
 *   <li>io_uring vs. FileChannel: the same random sequence of reads and writes leaves identical
 *       bytes in the L2 file and in the pinned arena.</li>
 * </ul>
 */
class DifferentialProperties {
    static final long PAGE = 4096;
    static final int ARENA_PAGES = 16;
    static final int L2_PAGES = 64;

    @TempDir
    Path dir;

    @Test
    void simAndHybridMakeTheSameHitDecisionsForEveryBlock() {
        long[] realLoads = {0};
        qt().withFixedSeed(HuntSupport.SEED).withExamples(5)
                .forAll(longs().between(1, 1_000_000))
                .checkAssert(seed -> {
                    try {
                        HybridRuns.Outcome sim = HybridRuns.run(seed, false, true, 0, dir);
                        HybridRuns.Outcome hybrid = HybridRuns.run(seed, true, true, 0, dir);
                        assertEquals(24, sim.finished());
                        assertEquals(sim.decisions(), hybrid.decisions(), "seed " + seed + ": per-request hit decisions on " + hybrid.port());
                        assertEquals(0, hybrid.storageFailures(), hybrid.port());
                        assertEquals(0, hybrid.realMismatches(), "no wrong byte on " + hybrid.port());
                        realLoads[0] += hybrid.realMatches();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
        // The workloads produce hits that hybrid mode verifies on real bytes; otherwise the comparison says little.
        assertTrue(realLoads[0] > 0, "hybrid runs verified " + realLoads[0] + " loads");
    }

    /** One operation: write arena pages to L2 pages, or read L2 pages into arena pages. */
    record IoStep(boolean write, int arenaPage, int l2Page, int pages) {}

    static Gen<IoStep> ioSteps() {
        return integers().between(0, 1).zip(integers().between(0, ARENA_PAGES - 1), integers().between(0, L2_PAGES - 1),
                integers().between(1, 4), (write, arenaPage, l2Page, pages) -> {
                    int n = Math.min(pages, Math.min(ARENA_PAGES - arenaPage, L2_PAGES - l2Page));
                    return new IoStep(write == 1, arenaPage, l2Page, n);
                });
    }

    @Test
    void ioUringAndFileChannelLeaveIdenticalBytes() {
        IoUringProbe probe = IoUringBackend.probe();
        Assumptions.assumeTrue(probe.available(), () -> "io_uring is refused here: " + probe.cause());
        int[] run = {0};
        qt().withFixedSeed(HuntSupport.SEED).withExamples(25)
                .forAll(lists().of(ioSteps()).ofSizeBetween(1, 40))
                .checkAssert(steps -> {
                    try {
                        int k = run[0]++;
                        byte[][] uring = apply(steps, dir.resolve("uring-" + k + ".bin"), true);
                        byte[][] channel = apply(steps, dir.resolve("channel-" + k + ".bin"), false);
                        assertArrayEquals(channel[0], uring[0], "L2 file bytes after " + steps);
                        assertArrayEquals(channel[1], uring[1], "arena bytes after " + steps);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
    }

    /** Runs the steps on one backend; returns the L2 file's bytes and the arena's bytes. */
    static byte[][] apply(List<IoStep> steps, Path l2, boolean ioUring) throws Exception {
        long l2Bytes = L2_PAGES * PAGE;
        try (PinnedArena arena = PinnedArena.allocate(ARENA_PAGES * PAGE, false);
             StoragePort port = ioUring
                     ? IoUringBackend.open(l2, arena, IoUringSettings.defaults().withL2PreallocateBytes(l2Bytes))
                     : FileChannelBackend.open(l2, arena, FileChannelSettings.defaults().withL2PreallocateBytes(l2Bytes))) {
            BlockingStorage storage = new BlockingStorage(port, 10_000_000_000L);
            long ticket = 1;
            for (int i = 0; i < steps.size(); i++) {
                IoStep step = steps.get(i);
                long l1Offset = step.arenaPage() * PAGE;
                long l2Offset = step.l2Page() * PAGE;
                long length = step.pages() * PAGE;
                IoOp.L2Op op;
                if (step.write()) {
                    // Stamp the pages with this step's pattern, so every write carries bytes no other step wrote.
                    for (long b = 0; b < length; b += 8) {
                        arena.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, l1Offset + b, (i + 1L) * 0x9E3779B97F4A7C15L ^ (l1Offset + b));
                    }
                    op = new IoOp.L2Write(ticket++, l1Offset, l2Offset, length);
                } else {
                    op = new IoOp.L2Read(ticket++, l2Offset, length, l1Offset, ticket, 1);
                }
                IoCompletion completion = storage.execute(op);
                assertTrue(completion.succeeded(), port.name() + " step " + i + " " + op + ": " + completion.errorName());
            }
            byte[] arenaBytes = arena.segment().asSlice(0, ARENA_PAGES * PAGE).toArray(ValueLayout.JAVA_BYTE);
            return new byte[][] {Files.readAllBytes(l2), arenaBytes};
        }
    }
}
