package tierlab.experiments;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Clean-up that must also happen when the JVM is stopped from outside: SIGINT (Ctrl-C) and SIGTERM
 * run shutdown hooks, so scratch L2 files (up to 16 GiB each) and half-written output folders
 * registered here are removed on those exits as well as on the normal and the exception path,
 * which close their {@link Registration} in a {@code finally}. SIGKILL runs no code at all: what it
 * leaves is named with the process id, and {@link StaleOutputs} removes it on the next run.
 */
public final class ExitCleanup {

    /** A pending clean-up; {@link #close()} runs it now and takes it off the exit list. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    private static final Map<Long, Runnable> PENDING = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_ID = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::runAll, "tierlab-exit-cleanup"));
    }

    private ExitCleanup() {
    }

    /** Runs {@code cleanup} at JVM exit unless the returned registration is closed first (which runs it then). */
    public static Registration register(Runnable cleanup) {
        long id = NEXT_ID.incrementAndGet();
        PENDING.put(id, cleanup);
        return () -> {
            Runnable action = PENDING.remove(id);
            if (action != null) {
                action.run();
            }
        };
    }

    private static void runAll() {
        for (Long id : PENDING.keySet()) {
            Runnable action = PENDING.remove(id);
            if (action == null) {
                continue;
            }
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                // The JVM is going down; one failed clean-up must not keep the others from running.
            }
        }
    }
}
