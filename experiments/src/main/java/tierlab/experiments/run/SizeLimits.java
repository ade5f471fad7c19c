package tierlab.experiments.run;

import java.util.Locale;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.store.StoreSettings;

/**
 * Sizes checked against what this machine can hold before anything is allocated, because
 * an L2 of a million GiB used to spend 23 s and end in a NegativeArraySizeException, and
 * {@code gpuKvBlocks} = Long.MAX 63 s and 6.4 GB before an OutOfMemoryError. The model keeps a few
 * tables per L2 unit (slot × lane) and one free-list entry per GPU block, all on the heap; a run is
 * refused, with one line naming the field and the largest value that fits, when those alone would
 * take more than half of the heap this JVM may use (the rest is the workload, the metrics and the
 * other runs of the sweep).
 */
final class SizeLimits {

    /** The experiment file itself: the catalogue's are a few KiB; a 50 MB file held the YAML reader for minutes. */
    static final long MAX_EXPERIMENT_FILE_BYTES = 1L << 20;
    /**
     * Heap per L2 unit when L2 is full: the ring's owner and the index's slot entry, the per-unit epoch,
     * residency, watcher and lease tables, and the index entry and key-map cell of the block stored there.
     */
    static final long HEAP_BYTES_PER_L2_UNIT = 160;
    /** Heap per GPU block: a boxed id in the engine's free list. */
    static final long HEAP_BYTES_PER_GPU_BLOCK = 32;

    /**
     * Heap per generated request: its spec, the engine's request, its outcome, TTFT and table row
     * (more with its chain, below).
     */
    static final long HEAP_BYTES_PER_REQUEST = 512;
    /** Heap per block key of a request's chain: the key and its list slot. */
    static final long HEAP_BYTES_PER_CHAIN_BLOCK = 40;

    private SizeLimits() {
    }

    /** The heap the model's sized tables may take: half of what this JVM may use. */
    static long heapBudgetBytes() {
        return Runtime.getRuntime().maxMemory() / 2;
    }

    /** Throws IllegalArgumentException (message starting with the field) when a size does not fit {@code budgetBytes}. */
    static void check(StoreSettings store, double l2GiB, SchedulerSettings scheduler, long budgetBytes) {
        if (l2GiB * Fields.GIB >= 0x1p63) {
            throw new IllegalArgumentException("store.l2CapacityGiB: " + plain(l2GiB) + " GiB is more than 8 EiB, more"
                    + " bytes than a file offset can address");
        }
        long units = saturatedTimes(store.slotCount(), store.geometry().tp());
        long maxUnits = budgetBytes / HEAP_BYTES_PER_L2_UNIT;
        if (store.slotCount() > Integer.MAX_VALUE || units > maxUnits) {
            double maxGiB = (double) maxUnits / store.geometry().tp() * store.geometry().blockBytes() / Fields.GIB;
            throw new IllegalArgumentException(String.format(Locale.ROOT, "store.l2CapacityGiB: %s GiB is %,d L2 slots of"
                    + " %,d bytes; tracking them needs %s of heap, more than half of the %.1f GiB this JVM may use; at most %,.0f GiB"
                    + " of L2 here for this model and block size", plain(l2GiB), store.slotCount(), store.geometry().blockBytes(),
                    size(saturatedTimes(units, HEAP_BYTES_PER_L2_UNIT)), 2 * budgetBytes / Fields.GIB, Math.floor(maxGiB)));
        }
        long maxGpuBlocks = budgetBytes / HEAP_BYTES_PER_GPU_BLOCK;
        if (scheduler.gpuKvBlocks() > maxGpuBlocks) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "scheduler.gpuKvBlocks: %,d GPU blocks need"
                    + " %s of heap, more than half of the %.1f GiB this JVM may use; at most %,d here", scheduler.gpuKvBlocks(),
                    size(saturatedTimes(scheduler.gpuKvBlocks(), HEAP_BYTES_PER_GPU_BLOCK)), 2 * budgetBytes / Fields.GIB, maxGpuBlocks));
        }
    }

    /**
     * The generated workload must fit too: {@code prompts: 2000000000} or a synthetic
     * {@code requestCount} of two billion used to end in an OutOfMemoryError trace while the requests
     * were drawn. Mooncake traces are bounded by their file.
     */
    static void checkWorkload(WorkloadPlan workload, long budgetBytes) {
        int blockTokens = workload.geometry().blockTokens();
        switch (workload) {
            case WorkloadPlan.LongPrefill plan -> {
                long passes = plan.passes().size();
                long perPrompt = perRequest(plan.settings().promptTokens().maxTokens(), blockTokens);
                long maxPrompts = budgetBytes / passes / perPrompt;
                if (maxPrompts == 0) {
                    throw new IllegalArgumentException(String.format(Locale.ROOT, "workload.promptTokens: one prompt of %,d"
                            + " tokens needs %s of heap, more than half of the %.1f GiB this JVM may use",
                            plan.settings().promptTokens().maxTokens(), size(saturatedTimes(passes, perPrompt)), 2 * budgetBytes / Fields.GIB));
                }
                if (plan.settings().prompts() > maxPrompts) {
                    throw new IllegalArgumentException(String.format(Locale.ROOT, "workload.prompts: %,d prompts × %d passes"
                            + " of up to %,d tokens need %s of heap, more than half of the %.1f GiB this JVM may use; at most"
                            + " %,d prompts of this length here", plan.settings().prompts(), passes,
                            plan.settings().promptTokens().maxTokens(), size(saturatedTimes(plan.settings().prompts() * passes, perPrompt)),
                            2 * budgetBytes / Fields.GIB, maxPrompts));
                }
            }
            case WorkloadPlan.Synthetic plan -> {
                long tokens = plan.settings().promptTokens().maxTokens() + plan.settings().sharedPrefixes().prefixTokens();
                long perRequest = perRequest(tokens, blockTokens);
                long maxRequests = budgetBytes / perRequest;
                if (plan.settings().requestCount() > maxRequests) {
                    throw new IllegalArgumentException(String.format(Locale.ROOT, "workload.synthetic.requestCount: %,d requests"
                            + " of up to %,d tokens need %s of heap, more than half of the %.1f GiB this JVM may use; at most"
                            + " %,d here", plan.settings().requestCount(), tokens,
                            size(saturatedTimes(plan.settings().requestCount(), perRequest)), 2 * budgetBytes / Fields.GIB, maxRequests));
                }
            }
            case WorkloadPlan.Mooncake plan -> { }
            case WorkloadPlan.Trace plan -> { }
        }
    }

    private static long perRequest(long promptTokens, int blockTokens) {
        return saturatedTimes(promptTokens / blockTokens, HEAP_BYTES_PER_CHAIN_BLOCK) + HEAP_BYTES_PER_REQUEST;
    }

    private static long saturatedTimes(long a, long b) {
        return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
    }

    private static String plain(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? String.format(Locale.ROOT, "%d", (long) value)
                : String.valueOf(value);
    }

    private static String size(long bytes) {
        return bytes == Long.MAX_VALUE ? "more than 8 EiB" : String.format(Locale.ROOT, "about %.1f GiB", bytes / Fields.GIB);
    }
}
