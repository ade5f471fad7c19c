package tierlab.experiments.run;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tierlab.engine.live.LiveRuntime;
import tierlab.engine.live.WarmStart;
import tierlab.engine.persist.IndexFile;
import tierlab.engine.persist.L2FileLock;
import tierlab.experiments.IoProblems;

/**
 * The persistent L2 file ({@code store.l2File}) of one live run, from its lock to its index: the
 * index is saved at the end only when the run may vouch for the file (no wrong bytes, no failure
 * but a clean stop on a signal), and otherwise dropped with one line on stderr saying why.
 *
 * <p>SIGINT and SIGTERM run shutdown hooks and then end the JVM wherever the run is. This run's
 * hook asks the runtime to stop cleanly (what is in flight lands, nothing new starts) and waits for
 * the run thread to save or drop the index, at most {@link #STOP_WAIT_MS}; a run that does not
 * stop in time says on stderr that its L2 cache was dropped (its writing session is already in the
 * file's trailer, so the index left beside it is stale and the next run starts cold).
 *
 * <p>A file the run's lock created and that never got the run's identity (the port could not size
 * it, the trailer could not be written) is removed on close: no empty or nameless leftovers.
 */
final class PersistentL2 implements AutoCloseable {

    /** How long a signal's shutdown hook waits for the run to stop and save its index. */
    static final long STOP_WAIT_MS = 30_000;

    private final RunPoint point;
    private final L2FileLock lock;
    private final CountDownLatch ended = new CountDownLatch(1);
    private WarmStart.Opened warm;
    private LiveRuntime runtime;
    private Thread hook;
    private boolean finished;

    PersistentL2(RunPoint point, L2FileLock lock) {
        this.point = point;
        this.lock = lock;
    }

    /** The store is open on the file and the runtime will serve: from now on a signal stops the run cleanly. */
    void opened(WarmStart.Opened opened, LiveRuntime liveRuntime) {
        this.warm = opened;
        this.runtime = liveRuntime;
        this.hook = new Thread(this::onSignal, "tierlab-l2-stop-run" + point.index());
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private void onSignal() {
        runtime.requestStop();
        try {
            if (!ended.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                say("the L2 cache of " + lock.path() + " was dropped: the run did not stop within " + STOP_WAIT_MS / 1000
                        + " s of the signal, so no index was saved; the next run starts cold");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Saves the index when {@code saveable} (the run ended cleanly, or stopped cleanly on a signal),
     * else drops it; returns {@code failure}. A failed save fails the run with a sentence naming the save.
     */
    String finish(String failure, boolean saveable, long wrongLoads) throws LiveRuns.L2Step {
        checkInvariants();
        finished = true;
        try {
            if (warm.stamp() == null) {
                // WarmStart said why when it opened (no session could be started); there is nothing to vouch for.
                return failure;
            }
            WarmStart.Saved saved;
            try {
                saved = saveable ? WarmStart.saveOnShutdown(warm, wrongLoads) : WarmStart.drop(warm, "the run failed: " + failure);
            } catch (IOException e) {
                throw new LiveRuns.L2Step((failure == null ? "the run finished, but" : failure + "; and") + " its L2 index could not be "
                        + "saved at " + IndexFile.besideL2(lock.path()) + ": " + IoProblems.describe(e) + " (the next run starts cold)", e);
            }
            if (!saved.saved()) {
                say("no L2 index saved for " + lock.path() + ": " + saved.dropped() + "; the next run starts cold");
            } else if (runtime.stopRequested()) {
                say("stopped by a signal; the L2 index was saved at " + saved.index() + ", the next run starts warm from it");
            }
            return failure;
        } finally {
            ended.countDown();
        }
    }

    @Override
    public void close() {
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to: it waits for the countdown below.
            }
        }
        try {
            if (warm != null && !finished) {
                // An exception ended the run before it could vouch for the file.
                WarmStart.drop(warm, "the run stopped on an error");
                say("no L2 index saved for " + lock.path() + ": the run stopped on an error; the next run starts cold");
            }
            if (lock.created() && (warm == null || warm.stamp() == null)) {
                Files.deleteIfExists(lock.path());
            }
        } catch (IOException e) {
            say("could not remove " + lock.path() + " or its index after the run failed: " + IoProblems.describe(e));
        } finally {
            ended.countDown();
        }
    }

    /** A finished run had opened the store; a hook exists exactly once the store is open; the lock is sound. */
    void checkInvariants() {
        if (finished && warm == null) {
            throw new IllegalStateException("run " + point.index() + " finished its L2 file without opening it");
        }
        if ((hook == null) != (warm == null)) {
            throw new IllegalStateException("run " + point.index() + ": a shutdown hook " + (hook == null ? "missing" : "present")
                    + " with the store " + (warm == null ? "not open" : "open"));
        }
        lock.checkInvariants();
    }

    private void say(String line) {
        System.err.println("tierlab: run " + point.index() + ": " + line);
    }

}
