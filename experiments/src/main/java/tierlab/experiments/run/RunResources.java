package tierlab.experiments.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import tierlab.engine.PinnedArena;
import tierlab.engine.cuda.CudaCopyPort;
import tierlab.engine.cuda.CudaDevice;
import tierlab.experiments.IoProblems;
import tierlab.experiments.OutputFolderCheck;
import tierlab.model.store.StoreSettings;

/**
 * What the hybrid and live runs of one executor share on this host: the scratch folder of their L2
 * files, the L1 memory budget their pinned arenas come out of, the CUDA device (looked for once),
 * and what each run ran on (run.json's facts, by run index). Sim runs touch none of it.
 */
final class RunResources {

    private final Path scratch;
    /** Taken lazily: a sweep of sim runs never reads the host's memory. */
    private volatile L1MemoryBudget l1Budget;
    private final Supplier<CudaDevice> cudaDevice;
    /** What each hybrid or live run ran on (run.json): L1 pinned or why not, storage backend, GPU copies; by run index. */
    private final Map<Integer, RunFacts> factsByRun = new ConcurrentHashMap<>();

    /**
     * @param l1Budget   null for three quarters of what the host has available when the first run needs it
     * @param cudaDevice the CUDA device, asked for only by a live run that may use CUDA
     */
    RunResources(Path scratch, L1MemoryBudget l1Budget, Supplier<CudaDevice> cudaDevice) {
        this.scratch = scratch;
        this.l1Budget = l1Budget;
        this.cudaDevice = cudaDevice;
    }


    Path scratch() {
        return scratch;
    }

    Map<Integer, RunFacts> factsByRun() {
        return Map.copyOf(factsByRun);
    }

    RunFacts facts(int runIndex) {
        return factsByRun.getOrDefault(runIndex, RunFacts.NONE);
    }

    void recordFacts(RunPoint point, UnaryOperator<RunFacts> change) {
        factsByRun.compute(point.index(), (run, facts) -> change.apply(facts == null ? RunFacts.NONE : facts));
    }

    L1MemoryBudget l1Budget() {
        L1MemoryBudget budget = l1Budget;
        if (budget == null) {
            synchronized (this) {
                if (l1Budget == null) {
                    l1Budget = L1MemoryBudget.ofHost();
                }
                budget = l1Budget;
            }
        }
        return budget;
    }

    /** Why a run that asks for CUDA cannot have it, or null when it can (or does not ask); recorded for run.json. */
    String cudaRefusal(RunPoint point) {
        String refusal = GpuCopyPath.refusal(point.config().gpu(), cudaDevice);
        if (refusal != null) {
            recordFacts(point, facts -> facts.withGpuCopies("none: " + refusal));
        }
        return refusal;
    }

    /**
     * The run's CUDA copy port over its L1 arena, or null for host buffers; says which on stderr in
     * one line and records it for run.json. {@link #cudaRefusal} has already refused a run that
     * asks for CUDA where there is none.
     */
    CudaCopyPort gpuPort(RunPoint point, PinnedArena arena, StoreSettings settings) {
        RunConfig config = point.config();
        GpuCopyPath.Opened opened = GpuCopyPath.open(config.gpu(), config.verifyGpu(), cudaDevice, arena, settings.geometry());
        recordFacts(point, facts -> facts.withGpuCopies(opened.description()));
        System.err.println("tierlab: run " + point.index() + ": " + opened.description());
        return opened.port();
    }

    /**
     * The run's L1 arena once the budget has room for it, mlocked so that KV bytes are never
     * swapped out between an L2 read and their use; the lock's outcome goes to run.json. Closing
     * the returned arena frees the memory and gives its bytes back to the budget.
     */
    L1Arena l1Arena(RunPoint point, long bytes) {
        L1MemoryBudget.Grant grant;
        try {
            grant = l1Budget().acquire(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for memory for the L1 arena", e);
        }
        try {
            PinnedArena arena = PinnedArena.allocate(bytes, true);
            recordFacts(point, facts -> facts.withArena(arena));
            return new L1Arena(arena, grant);
        } catch (RuntimeException | Error e) {
            grant.close();
            throw e;
        }
    }

    /** An arena and the budget bytes it holds: the bytes go back only after the memory is freed. */
    record L1Arena(PinnedArena arena, L1MemoryBudget.Grant grant) implements AutoCloseable {
        @Override
        public void close() {
            try {
                arena.close();
            } finally {
                grant.close();
            }
        }
    }

    /** The run's scratch L2 file, {@code l2-run<index>-<pid>.bin} (StaleOutputs knows the name); the folder is made here. */
    Path l2File(RunPoint point) {
        try {
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the scratch folder " + scratch + ": " + IoProblems.describe(e), e);
        }
        return scratch.resolve("l2-run" + point.index() + "-" + ProcessHandle.current().pid() + ".bin");
    }

    /** "cannot open the L2 file F (N preallocated): the cause in words". */
    static String cannotOpen(Path l2, long l2Bytes, Exception e) {
        return "cannot open the L2 file " + l2 + " (" + OutputFolderCheck.size(l2Bytes) + " preallocated): "
                + IoProblems.describe(e);
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A leftover scratch file is harmless; the run's result does not depend on it.
        }
    }
}
