package tierlab.sim.fault;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import tierlab.model.io.IoOp;
import tierlab.sim.SimRuntime;

/**
 * Injects device faults between the device models and the model.
 *
 * <h2>Fault model</h2>
 * <ul>
 *   <li><b>I/O errors</b>: an L2 read or write completes with EIO, by probability or for scheduled
 *       tickets. Nothing is transferred (the payload ledger leaves the target untouched).</li>
 *   <li><b>Short reads</b>: a read returns fewer bytes than asked. The engine reports a short read
 *       as a failure (it never accepts it silently), so the model sees a failed read.</li>
 *   <li><b>Latency spikes</b>: a completion arrives {@code latencySpikeNs} late.</li>
 *   <li><b>Reordering and delay</b>: every completion is delayed by a uniform draw in the reorder
 *       window, so completions that were close together arrive in any order.</li>
 *   <li><b>Stuck operations</b>: a command hangs for {@code stuckForNs} before it completes.</li>
 * </ul>
 * GPU copies and compute steps are never faulted: the model's failure handling is about storage.
 * Process crash and restart is a runtime-level fault (L1 lost, the L2 index reloaded from its last
 * snapshot); see {@code CrashRestart}.
 *
 * <p>All draws come from one seeded stream in completion-scheduling order, so a campaign replays
 * exactly from its seed.
 */
public final class FaultInjector implements SimRuntime.CompletionFilter {
    private final FaultSettings settings;
    private final SplittableRandom random;
    private final Set<Long> failReadTickets;
    private long readErrors;
    private long writeErrors;
    private long shortReads;
    private long spikes;
    private long stuck;

    public FaultInjector(FaultSettings settings, SplittableRandom random) {
        this.settings = settings;
        this.random = random;
        this.failReadTickets = new HashSet<>(settings.failReadTickets());
    }

    @Override
    public SimRuntime.Delivery filter(IoOp op, long completionNs) {
        long at = completionNs;
        if (settings.reorderWindowNs() > 0) {
            at += random.nextLong(settings.reorderWindowNs());
        }
        if (!(op instanceof IoOp.L2Op)) {
            return new SimRuntime.Delivery(at, true);
        }
        boolean succeeded = true;
        if (op instanceof IoOp.L2Read read) {
            if (failReadTickets.contains(read.ticket()) || random.nextDouble() < settings.readErrorProbability()) {
                succeeded = false;
                readErrors++;
            } else if (random.nextDouble() < settings.shortReadProbability()) {
                succeeded = false;
                shortReads++;
            }
        } else if (random.nextDouble() < settings.writeErrorProbability()) {
            succeeded = false;
            writeErrors++;
        }
        if (random.nextDouble() < settings.latencySpikeProbability()) {
            at += settings.latencySpikeNs();
            spikes++;
        }
        if (random.nextDouble() < settings.stuckProbability()) {
            at += settings.stuckForNs();
            stuck++;
        }
        return new SimRuntime.Delivery(at, succeeded);
    }

    public long readErrors() { return readErrors; }
    public long writeErrors() { return writeErrors; }
    public long shortReads() { return shortReads; }
    public long spikes() { return spikes; }
    public long stuck() { return stuck; }
}
