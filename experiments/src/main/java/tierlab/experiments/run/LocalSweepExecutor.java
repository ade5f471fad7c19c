package tierlab.experiments.run;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Runs points on a fixed pool of platform threads, one point per thread at a time. Runs share
 * nothing mutable (each builds its own store, scheduler and simulator), so parallelism changes
 * wall time only, never a result.
 */
public final class LocalSweepExecutor implements SweepExecutor {

    private final int threads;

    public LocalSweepExecutor(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, was " + threads);
        }
        this.threads = threads;
    }

    @Override
    public List<RunResult> run(List<RunPoint> points, Function<RunPoint, RunResult> task, Progress progress) {
        if (threads == 1 || points.size() <= 1) {
            List<RunResult> results = new ArrayList<>(points.size());
            for (RunPoint point : points) {
                RunResult result = task.apply(point);
                progress.finished(point, result);
                results.add(result);
            }
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, points.size()), runnable -> {
            Thread thread = new Thread(runnable, "tierlab-run");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<RunResult>> futures = new ArrayList<>(points.size());
            for (RunPoint point : points) {
                futures.add(pool.submit(() -> {
                    RunResult result = task.apply(point);
                    progress.finished(point, result);
                    return result;
                }));
            }
            List<RunResult> results = new ArrayList<>(points.size());
            for (Future<RunResult> future : futures) {
                results.add(future.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the sweep was running", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } finally {
            pool.shutdownNow();
        }
    }
}
