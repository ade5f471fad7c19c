package tierlab.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import tierlab.model.drive.Driver;
import tierlab.model.drive.ProgressWatchdog;
import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.ComputePort;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;
import tierlab.model.io.PayloadLedger;
import tierlab.model.l2.L2Snapshot;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;
import tierlab.model.serving.ServingEngines;
import tierlab.model.store.TieredStore;
import tierlab.sim.device.CopyEngine;
import tierlab.sim.device.DeviceProfile;
import tierlab.sim.device.GpuModel;
import tierlab.sim.device.HostSubmitter;
import tierlab.sim.device.HostThread;
import tierlab.sim.device.SimComputeContext;
import tierlab.sim.device.SimCopyPort;
import tierlab.sim.device.SimStoragePort;
import tierlab.sim.device.StorageDevice;
import tierlab.sim.device.StorageModels;
import tierlab.sim.hybrid.RealBytes;
import tierlab.model.util.SeedTree;
import tierlab.sim.kernel.Simulator;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.Sample;

/**
 * Drives the unchanged model on a virtual clock: requests arrive as events, the {@link Driver}
 * hands every operation the engine emits to a simulated device port (storage: {@link SimStoragePort}
 * over the model the profile names in {@link StorageModels}, copies: {@link SimCopyPort}, compute:
 * the port the caller opens, by default a {@link GpuModel} of the profile's compute model) that says
 * when it completes, and the completion comes back as an event on this
 * runtime's timeline. Payload identity is followed by a {@link PayloadLedger}, so a stale read is a
 * counted mismatch exactly as in hybrid and live mode.
 *
 * <p>Everything here is deterministic: the same inputs and seed give the same decision trace.
 */
public final class SimRuntime implements CompletionTimeline {

    /** Receives every completion before the model sees it: fault injection hooks in here. */
    public interface CompletionFilter {
        /** Returns the completion to deliver (possibly failed) and may delay it by returning a later time. */
        Delivery filter(IoOp op, long completionNs);
    }

    /** When and how an operation's completion is delivered. */
    public record Delivery(long atNs, boolean succeeded) {}

    /**
     * What the instances of a fleet on one host share: one simulator clock, one storage device model
     * and one L2 payload identity (the ledger whose L2 table every instance's ledger uses).
     */
    public record SharedHost(Simulator simulator, StorageDevice storage, PayloadLedger l2Ledger) {}

    private final Simulator simulator;
    private final Driver driver;
    private TieredStore store;
    /** Bumped by a crash: events of an earlier process are dropped when they fire. */
    private int generation;
    private L2Snapshot lastSnapshot;
    private long snapshotIntervalNs;
    private long nextSnapshotNs;
    private final List<RequestOutcome> finishedBeforeCrashes = new ArrayList<>();
    private long crashes;
    private RealBytes realBytes;
    private long sampleIntervalNs;
    private long nextSampleNs;
    private final List<Sample> samples = new ArrayList<>();
    private boolean down;
    /** See {@link #setSameInstantArrivalsTogether}. */
    private boolean arrivalsTogether;
    /** A tick for this instant's arrivals is scheduled and has not run yet. */
    private boolean arrivalPumpScheduled;
    private final List<RequestSpec> arrivedWhileDown = new ArrayList<>();
    private final PayloadLedger ledger;
    private final CopyEngine hostToDevice;
    private final CopyEngine deviceToHost;
    /** The compute port the caller opened, behind the count of steps handed to it. */
    private final ComputePort compute;
    private long computeSteps;
    private final HostThread hostThread;
    private final SimStoragePort storage;
    private final SimCopyPort copies;
    private CompletionFilter filter;
    private boolean checkInvariants;
    private long requestsSubmitted;
    private final ArrayDeque<RequestSpec> closedLoopQueue = new ArrayDeque<>();
    private int closedLoopFinishedSeen;
    private Runnable afterPump;

    /** A runtime whose compute port is the GPU model of {@code profile}'s compute model. */
    public SimRuntime(ServingEngine scheduler, DeviceProfile profile, SeedTree seeds) {
        this(scheduler, profile, seeds, GpuModel.opener(profile.gpu().computeModel()));
    }

    /**
     * A runtime whose compute port {@code computePort} opens on this runtime's clock, host thread and
     * layer groups; the rest of the devices are {@code profile}'s.
     */
    public SimRuntime(ServingEngine scheduler, DeviceProfile profile, SeedTree seeds,
                      ComputePort.Opener<SimComputeContext> computePort) {
        this(scheduler, profile, seeds, computePort, null);
    }

    /**
     * A runtime that is one instance of a fleet on {@code host} (null: a host of its own, as the
     * constructors above): its events go on the host's simulator, its L2 operations to the host's
     * storage device through a submitting thread of its own, and its ledger shares the host's L2.
     */
    public SimRuntime(ServingEngine scheduler, DeviceProfile profile, SeedTree seeds,
                      ComputePort.Opener<SimComputeContext> computePort, SharedHost host) {
        this.simulator = host == null ? new Simulator() : host.simulator();
        this.store = scheduler.store();
        this.ledger = host == null
                ? new PayloadLedger(store.settings().geometry().laneBytes(), store.settings().geometry().tp())
                : PayloadLedger.sharingL2With(host.l2Ledger());
        this.hostToDevice = new CopyEngine(profile.pcie().h2dBytesPerSecond(), profile.pcie().h2dLatencyNs());
        this.deviceToHost = new CopyEngine(profile.pcie().d2hBytesPerSecond(), profile.pcie().d2hLatencyNs());
        this.hostThread = new HostThread(profile.host());
        // The model's seed is named after the model, so the nvme model keeps the seed it always had.
        this.storage = host == null ? StorageModels.open(profile, seeds::seedOf, this)
                : StorageModels.openOn(profile, host.storage(), this);
        this.copies = new SimCopyPort(hostToDevice, deviceToHost, this, hostThread);
        int layerGroups = scheduler.settings().loadLayerGroups();
        LayerGroupLoads loads = null;
        if (layerGroups > 1) {
            // Layer-wise loading: the copy port splits loads per layer group, the GPU computes behind them.
            loads = new LayerGroupLoads(layerGroups);
            copies.setLayerGroups(loads);
        }
        ComputePort opened = computePort.open(new SimComputeContext(this, hostThread, loads));
        this.compute = (step, sink) -> {
            computeSteps++;
            opened.step(step, sink);
        };
        OpSink completed = (op, completion) -> {
            long nowNs = simulator.nowNs();
            driver().deliver(op, completion, nowNs);
            pump(nowNs);
        };
        this.driver = new Driver(scheduler, storage, copies, compute, completed,
                (op, completion) -> ledger.apply(op, completion.succeeded()));
    }

    private Driver driver() {
        return driver;
    }

    /** Installs a completion filter (fault injection); null removes it. */
    public void setCompletionFilter(CompletionFilter completionFilter) {
        this.filter = completionFilter;
    }

    /**
     * Another progress watchdog (tests lower its limits); the default one ends a run that cannot end
     * with {@link ProgressWatchdog.RunStopped} out of {@link #run()}.
     */
    public void setWatchdog(ProgressWatchdog watchdog) {
        driver.setWatchdog(watchdog);
    }

    /** Checks every invariant after every event (slow; for tests and fault campaigns). */
    public void setCheckInvariants(boolean check) {
        this.checkInvariants = check;
    }

    /**
     * Hands every request that arrives at one instant to the engine before the engine looks at any
     * of them, as the live runtime's loop does (it submits every arrival that is due, then ticks
     * once). Off by default: each arrival is then handed over and the engine ticked on its own, so
     * the first of several simultaneous arrivals is scheduled alone and may start a step before the
     * others are seen. Every catalogue result was computed that way; {@code tierlab validate}, which
     * compares the simulator with the live loop, turns this on (docs/validation.md, E1-like warm).
     */
    public void setSameInstantArrivalsTogether(boolean together) {
        this.arrivalsTogether = together;
    }

    /** Schedules a request's arrival at its {@code arrivalNs}. */
    public void submit(RequestSpec spec) {
        requestsSubmitted++;
        simulator.at(spec.arrivalNs(), now -> arrive(spec, now));
    }

    /** Hands a request to the engine now: a fleet's router calls this at the arrival it routed. */
    public void submitNow(RequestSpec spec, long nowNs) {
        requestsSubmitted++;
        arrive(spec, nowNs);
    }

    private void arrive(RequestSpec spec, long now) {
        if (down) {
            // No process is serving: the client retries once the engine is back.
            arrivedWhileDown.add(spec);
            return;
        }
        driver.engine().submit(spec, now);
        if (!arrivalsTogether) {
            pump(now);
        } else if (!arrivalPumpScheduled) {
            // One tick after every arrival already scheduled for this instant (events at one
            // instant fire in the order they were scheduled, and arrivals are scheduled first).
            arrivalPumpScheduled = true;
            simulator.at(now, then -> {
                arrivalPumpScheduled = false;
                if (!down) {
                    pump(then);
                }
            });
        }
    }

    /** Runs after every time this runtime moved its engine (a fleet checks its shared pool there); null: nothing. */
    public void setAfterPump(Runnable afterPump) {
        this.afterPump = afterPump;
    }

    /** Another instance of the shared pool changed this one's store: it moves on, and its operations go out. */
    public void resume(long nowNs) {
        if (!down) {
            store.resumeWaiting();
            pump(nowNs);
        }
    }

    /**
     * Sends {@code requests} as a closed-loop client (a benchmark script with a fixed concurrency):
     * the first {@code clientConcurrency} at {@code startNs}, then one more each time a request
     * finishes, in list order. The specs' own arrival times are ignored; TTFT then measures the
     * engine, not the time a request waited in the client. Not combined with crashes.
     */
    public void submitClosedLoop(List<RequestSpec> requests, int clientConcurrency, long startNs) {
        if (clientConcurrency <= 0) {
            throw new IllegalArgumentException("clientConcurrency must be > 0, was " + clientConcurrency);
        }
        closedLoopFinishedSeen = driver.engine().finishedCount();
        for (int index = 0; index < requests.size(); index++) {
            RequestSpec spec = requests.get(index);
            if (index < clientConcurrency) {
                submit(retimed(spec, startNs));
            } else {
                closedLoopQueue.add(spec);
            }
        }
    }

    private static RequestSpec retimed(RequestSpec spec, long arrivalNs) {
        return new RequestSpec(spec.requestId(), arrivalNs, spec.promptTokens(), spec.outputTokens(), spec.chain());
    }

    /** A closed-loop client sends one queued request per request finished since it last looked. */
    private void sendClosedLoop(long nowNs) {
        if (closedLoopQueue.isEmpty()) {
            return;
        }
        int finishedNow = driver.engine().finishedCount();
        while (closedLoopFinishedSeen < finishedNow && !closedLoopQueue.isEmpty()) {
            closedLoopFinishedSeen++;
            submit(retimed(closedLoopQueue.poll(), nowNs));
        }
    }

    /** Runs to quiescence: every request finished and every operation completed. */
    public void run() {
        simulator.run();
    }

    /** Runs until the virtual horizon. */
    public void run(long horizonNs) {
        simulator.run(horizonNs);
    }

    private void pump(long nowNs) {
        if (sampleIntervalNs > 0 && nowNs >= nextSampleNs) {
            ServingEngine engine = driver.engine();
            samples.add(new Sample(nowNs, store.l1UsedBytes(), store.leasedRemainingBytes(), store.storeQueueDepth(),
                    engine.runningCount(), engine.waitingCount(), engine.activePrefetches(), store.inflightOps()));
            nextSampleNs = nowNs + sampleIntervalNs;
        }
        if (snapshotIntervalNs > 0 && nowNs >= nextSnapshotNs) {
            lastSnapshot = store.snapshot();
            nextSnapshotNs = nowNs + snapshotIntervalNs;
        }
        ServingEngine engine = driver.engine();
        engine.tick(nowNs);
        sendClosedLoop(nowNs);
        driver.dispatch(engine.drainOps());
        check();
        if (afterPump != null) {
            afterPump.run();
        }
    }

    @Override
    public long nowNs() {
        return simulator.nowNs();
    }

    /**
     * A device port says when {@code op} completes: the completion filter (faults) may fail or delay
     * it, and it is delivered as an event then, unless the process that issued it crashed meanwhile.
     */
    @Override
    public void completeAt(IoOp op, long completionNs, OpSink sink) {
        if (filter == null) {
            // Every completion of a run passes here: without faults, one event object and no Delivery.
            simulator.at(completionNs, new PendingCompletion(op, sink, generation, true));
            return;
        }
        Delivery delivery = filter.filter(op, completionNs);
        simulator.at(Math.max(completionNs, delivery.atNs()), new PendingCompletion(op, sink, generation, delivery.succeeded()));
    }

    /**
     * A completion on its way back: one object per operation (the event itself) rather than a
     * capturing lambda plus a {@link Delivery}.
     */
    private final class PendingCompletion implements Simulator.Event {
        private final IoOp op;
        private final OpSink sink;
        private final int issuedIn;
        private final boolean succeeded;

        PendingCompletion(IoOp op, OpSink sink, int issuedIn, boolean succeeded) {
            this.op = op;
            this.sink = sink;
            this.issuedIn = issuedIn;
            this.succeeded = succeeded;
        }

        @Override
        public void fire(long nowNs) {
            if (issuedIn != generation) {
                // Issued by a process that crashed: nobody is waiting for it any more.
                return;
            }
            sink.completed(op, succeeded ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"));
        }
    }

    /**
     * Takes an L2 index snapshot every {@code intervalNs} of virtual time (and one now), as a
     * deployment that persists its index periodically would; a crash restarts from the last one.
     */
    public void setSnapshotIntervalNs(long intervalNs) {
        this.snapshotIntervalNs = intervalNs;
        this.lastSnapshot = store.snapshot();
        this.nextSnapshotNs = simulator.nowNs() + intervalNs;
    }

    /**
     * Schedules a process crash at {@code atNs} and a restart {@code restartDelayNs} later: pinned
     * memory and GPU memory are lost, operations in flight are abandoned, the L2 file survives, and
     * the new process recovers its index from the last snapshot plus the allocation journal (see
     * {@link TieredStore#recover}). Requests that had not finished are submitted again at restart.
     */
    public void crashAt(long atNs, long restartDelayNs) {
        simulator.at(atNs, now -> {
            if (lastSnapshot == null) {
                throw new IllegalStateException("crashAt needs setSnapshotIntervalNs first: there is no index snapshot");
            }
            crashes++;
            generation++;
            ServingEngine crashed = driver.engine();
            finishedBeforeCrashes.addAll(crashed.finished());
            List<RequestSpec> unfinished = crashed.unfinished();
            ledger.crash();
            if (realBytes != null) {
                realBytes.crash();
            }
            TieredStore recovered = TieredStore.recover(store.settings(), lastSnapshot,
                    store.allocationsSince(lastSnapshot.nextRunId()), store.trace());
            ServingEngine restarted = ServingEngines.restart(crashed, recovered, store.trace());
            down = true;
            simulator.at(now + restartDelayNs, then -> {
                store = recovered;
                driver.replaceEngine(restarted);
                down = false;
                lastSnapshot = store.snapshot();
                List<RequestSpec> resubmit = new ArrayList<>(unfinished);
                resubmit.addAll(arrivedWhileDown);
                arrivedWhileDown.clear();
                for (RequestSpec spec : resubmit) {
                    restarted.submit(new RequestSpec(spec.requestId(), then, spec.promptTokens(), spec.outputTokens(),
                            spec.chain()), then);
                }
                pump(then);
            });
        });
    }

    /**
     * The all-in-host-memory baseline (the usual alternative, configured with CPU memory that holds
     * everything): pair it with an L1 larger than the working set; L2 writes then complete at once
     * and cost no device time, and L2 is never read.
     */
    public void setL2Free(boolean free) {
        storage.setL2Free(free);
    }

    /**
     * Hybrid mode: every completed operation is also carried out on real bytes (a real storage
     * port, a real pinned arena, verified payloads): the driver's ports become the simulated ones
     * decorated by {@link RealBytes}. The simulator still decides when and in which order operations
     * complete; the symbolic ledger keeps running beside the real bytes. Call before the run starts.
     */
    public void setRealBytes(RealBytes bytes) {
        this.realBytes = bytes;
        driver.replacePorts(bytes.storagePort(storage), bytes.copyPort(copies), bytes.computePort(compute));
    }

    public RealBytes realBytes() {
        return realBytes;
    }

    /** Records a {@link Sample} at most every {@code intervalNs} of virtual time. */
    public void setSampleIntervalNs(long intervalNs) {
        this.sampleIntervalNs = intervalNs;
        this.nextSampleNs = simulator.nowNs();
    }

    public List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** Requests finished by processes that later crashed. */
    public List<RequestOutcome> finishedBeforeCrashes() {
        return List.copyOf(finishedBeforeCrashes);
    }

    public long crashes() {
        return crashes;
    }

    private void check() {
        if (checkInvariants) {
            driver.engine().checkInvariants();
            driver.watchdog().checkInvariants();
            hostThread.checkInvariants();
            storage.submitter().checkInvariants();
            storage.device().checkInvariants();
        }
    }

    /** The run's counters now: virtual time, the simulated submitter's io_uring_enter calls, the payload ledger's checks. */
    public CounterSnapshot counterSnapshot() {
        return CounterSnapshot.of(driver.engine(), simulator.nowNs(), storage.submitter().enterCalls(), ledger.loadMatches(),
                ledger.loadMismatches(), ledger.stagingMismatches());
    }

    public Simulator simulator() { return simulator; }
    public ServingEngine scheduler() { return driver.engine(); }
    public TieredStore store() { return store; }
    public PayloadLedger ledger() { return ledger; }
    public CopyEngine hostToDevice() { return hostToDevice; }
    public CopyEngine deviceToHost() { return deviceToHost; }
    /** Engine steps handed to the compute port so far. */
    public long computeSteps() { return computeSteps; }
    /** The model thread's host costs (copy calls, engine steps); charges nothing on the presets. */
    public HostThread hostThread() { return hostThread; }
    public HostSubmitter submitter() { return storage.submitter(); }
    public SimStoragePort storage() { return storage; }
    public long requestsSubmitted() { return requestsSubmitted; }
}
