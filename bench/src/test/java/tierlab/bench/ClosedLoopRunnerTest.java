package tierlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tierlab.engine.FileChannelBackend;
import tierlab.engine.FileChannelSettings;
import tierlab.engine.IoCounters;
import tierlab.engine.IoUringBackend;
import tierlab.engine.IoUringSettings;
import tierlab.engine.PinnedArena;
import tierlab.engine.uring.IoUringProbe;
import tierlab.model.testkit.TestDirectories;

/** The closed loop on a small real file, for one second per access pattern, on both backends. */
class ClosedLoopRunnerTest {

    private static final long FILE_BYTES = 16L << 20;
    private static final int BLOCK_BYTES = 128 << 10;
    private static final int QUEUE_DEPTH = 4;
    private static final Duration RUN = Duration.ofSeconds(1);

    private static Path dir;
    private static Path file;
    /** Null when the directory takes O_DIRECT; else why not (the backends then run buffered). */
    private static String directRefusal;

    @BeforeAll
    static void createFile() throws IOException {
        dir = TestDirectories.underTarget("closed-loop-");
        file = dir.resolve("l2.bin");
        byte[] bytes = new byte[(int) FILE_BYTES];
        new SplittableRandom(3).nextBytes(bytes);
        Files.write(file, bytes);
        directRefusal = IoUringBackend.probe().available() ? EngineVsFio.directIoRefusal(dir) : "io_uring unavailable";
    }

    @AfterAll
    static void deleteFile() {
        TestDirectories.deleteRecursively(dir);
    }

    private static void assertPlausible(ClosedLoopRunner.Result result, BenchCase benchCase) {
        assertEquals(0, result.errors(), () -> "first error: " + result.firstError());
        assertNull(result.firstError());
        assertTrue(result.ops() > QUEUE_DEPTH, () -> benchCase.name() + ": only " + result.ops() + " ops in a second");
        assertEquals(result.ops() * BLOCK_BYTES, result.bytes());
        assertTrue(result.elapsedNs() >= RUN.toNanos(), "the loop ran until its deadline: " + result.elapsedNs());
        assertTrue(result.elapsedNs() < RUN.toNanos() + 30_000_000_000L, "and drained soon after: " + result.elapsedNs());
        assertTrue(result.mibPerSecond() > 0 && result.opsPerSecond() > 0, result.toString());
    }

    @ParameterizedTest
    @EnumSource(BenchCase.Access.class)
    void ioUringKeepsTheQueueFullAndMovesBytes(BenchCase.Access access) throws IOException {
        IoUringProbe probe = IoUringBackend.probe();
        Assumptions.assumeTrue(probe.available(), () -> "io_uring is unavailable here: " + probe.cause());
        BenchCase benchCase = new BenchCase(access, BLOCK_BYTES, QUEUE_DEPTH);
        IoUringSettings settings = IoUringSettings.defaults().withRings(1, 64).withDirectIo(directRefusal == null);
        try (PinnedArena arena = PinnedArena.allocate((long) QUEUE_DEPTH * BLOCK_BYTES, false)) {
            try (IoUringBackend backend = IoUringBackend.open(file, arena, settings)) {
                IoCounters before = backend.counters();
                ClosedLoopRunner.Result result = ClosedLoopRunner.run(backend, benchCase, FILE_BYTES, RUN, 1);
                assertPlausible(result, benchCase);
                IoCounters delta = backend.counters().minus(before);
                assertEquals(result.ops(), delta.opsCompleted(), "every op the loop counted went through the backend");
                assertEquals(result.ops(), delta.batches(), "one submit() per op");
                assertTrue(delta.enterCalls() > 0 && delta.enterCalls() <= delta.opsCompleted() + QUEUE_DEPTH + 8,
                        "io_uring_enter calls " + delta.enterCalls() + " for " + delta.opsCompleted() + " ops");
            }
        }
        assertEquals(FILE_BYTES, Files.size(file), "writes stay inside the file");
    }

    @ParameterizedTest
    @EnumSource(BenchCase.Access.class)
    void fileChannelKeepsTheQueueFullAndMovesBytes(BenchCase.Access access) throws IOException {
        BenchCase benchCase = new BenchCase(access, BLOCK_BYTES, QUEUE_DEPTH);
        try (PinnedArena arena = PinnedArena.allocate((long) QUEUE_DEPTH * BLOCK_BYTES, false)) {
            try (FileChannelBackend backend = FileChannelBackend.open(file, arena,
                    FileChannelSettings.defaults().withWorkerThreads(QUEUE_DEPTH))) {
                ClosedLoopRunner.Result result = ClosedLoopRunner.run(backend, benchCase, FILE_BYTES, RUN, 2);
                assertPlausible(result, benchCase);
                assertEquals(result.ops(), backend.counters().opsCompleted());
            }
        }
        assertEquals(FILE_BYTES, Files.size(file));
    }
}
