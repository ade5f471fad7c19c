package tierlab.engine.live;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** The live ports' single-thread executors ("streams") and how they stop. */
final class Streams {

    private Streams() {
    }

    /**
     * Stops {@code streams}: queued work is dropped (after a normal run there is none) and the task
     * running on each is waited for, however long, because the buffers it touches are released right
     * after this. An interrupt while waiting is kept for the caller, not lost.
     */
    static void stopAndAwait(ExecutorService... streams) {
        for (ExecutorService stream : streams) {
            stream.shutdownNow();
        }
        boolean interrupted = false;
        for (ExecutorService stream : streams) {
            while (true) {
                try {
                    if (stream.awaitTermination(1, TimeUnit.SECONDS)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
