package tierlab.experiments.run;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tierlab.metrics.CounterSnapshot;
import tierlab.metrics.PassMetrics;
import tierlab.model.request.RequestOutcome;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.ServingEngine;

/**
 * The pass loop of every mode: re-times each pass, serves it, and measures it between two counter
 * snapshots. Its metrics, TTFTs and submissions survive a pass that throws.
 */
final class PassLoop {

    /**
     * One mode's way of running a pass; the loop is the same in every mode. Sim and hybrid passes
     * run on the virtual clock, live passes on the wall clock.
     */
    interface PassRunner {
        /** The pass's requests, re-timed for this mode (pass {@code index} of the run). */
        List<RequestSpec> timed(int index, List<RequestSpec> requests);

        CounterSnapshot snapshot();

        /** Serves {@code requests} until the run is quiet again. */
        void run(List<RequestSpec> requests);

        /** The run's time since it started, across passes (what {@link RunObserver#started} is given). */
        long runClockNs();

        /** The engine serving the passes (a live warm start replaces the run's own). */
        ServingEngine engine();
    }

    final List<PassMetrics> metrics = new ArrayList<>();
    final Map<String, long[]> ttft = new LinkedHashMap<>();
    final Map<String, List<RequestOutcome>> outcomes = new LinkedHashMap<>();
    long submitted;

    /** Runs every pass; returns a failure (a pass whose requests did not all finish) or null. */
    String run(RunPasses passes, PassRunner runner, RunObserver observer) {
        ServingEngine engine = runner.engine();
        observer.started(engine.store(), runner::runClockNs);
        for (int index = 0; index < passes.names().size(); index++) {
            String name = passes.names().get(index);
            List<RequestSpec> requests = runner.timed(index, passes.requests().get(index));
            CounterSnapshot start = runner.snapshot();
            // Counted before serving: a pass that throws still submitted its requests (they are unfinished).
            submitted += requests.size();
            runner.run(requests);
            observer.passEnded(name, runner.runClockNs());
            CounterSnapshot end = runner.snapshot();
            Set<Long> ids = ids(requests);
            List<RequestOutcome> finished = engine.finished().stream().filter(o -> ids.contains(o.requestId())).toList();
            metrics.add(PassMetrics.of(name, finished, start, end));
            ttft.put(name, finished.stream().mapToLong(RequestOutcome::ttftNs).toArray());
            outcomes.put(name, finished);
            if (finished.size() < requests.size()) {
                return "stalled: " + (requests.size() - finished.size()) + " of " + requests.size()
                        + " requests of the " + name + " pass never finished";
            }
        }
        return null;
    }

    /** The same requests with arrivals moved so the first is at {@code startNs} (gaps kept). */
    static List<RequestSpec> shifted(List<RequestSpec> requests, long startNs) {
        if (requests.isEmpty()) {
            return requests;
        }
        long first = requests.stream().mapToLong(RequestSpec::arrivalNs).min().orElse(0);
        return requests.stream().map(r -> new RequestSpec(r.requestId(), r.arrivalNs() - first + startNs,
                r.promptTokens(), r.outputTokens(), r.chain())).toList();
    }

    private static Set<Long> ids(List<RequestSpec> requests) {
        Set<Long> ids = new HashSet<>();
        requests.forEach(r -> ids.add(r.requestId()));
        return ids;
    }
}
