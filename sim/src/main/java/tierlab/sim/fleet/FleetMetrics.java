package tierlab.sim.fleet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.metrics.Percentiles;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.StoreCounter;
import tierlab.sim.SimRuntime;

/**
 * A fleet run's figures, per instance and fleet-wide, as one row of named metrics: fleet-wide ones
 * are {@code fleet.NAME}, each instance's {@code instanceI.NAME} (I from 0), so one results row holds
 * every instance however many there are (docs/fleet.md lists the names). Hit ratios are prompt tokens
 * served from each tier over prompt tokens; TTFT is first token less arrival, nearest rank.
 */
public final class FleetMetrics {

    private FleetMetrics() {
    }

    /** The metrics of {@code fleet} after its run, fleet-wide first, then instance by instance. */
    public static Map<String, Double> of(FleetRuntime fleet) {
        Map<String, Double> metrics = new LinkedHashMap<>();
        List<RequestOutcome> all = new ArrayList<>();
        long readBytes = 0;
        long writeBytes = 0;
        for (SimRuntime instance : fleet.instances()) {
            all.addAll(instance.scheduler().finished());
            readBytes += instance.store().counter(StoreCounter.L2_READ_BYTES);
            writeBytes += instance.store().counter(StoreCounter.L2_WRITE_BYTES);
        }
        long[] routed = fleet.routedByInstance();
        put(metrics, "fleet.", all);
        metrics.put("fleet.loadBalanceMaxOverMean", loadBalance(routed));
        metrics.put("fleet.poolReadBytes", (double) readBytes);
        metrics.put("fleet.poolWriteBytes", (double) writeBytes);
        for (int i = 0; i < fleet.instances().size(); i++) {
            SimRuntime instance = fleet.instances().get(i);
            String prefix = "instance" + i + ".";
            metrics.put(prefix + "requestsRouted", (double) routed[i]);
            put(metrics, prefix, instance.scheduler().finished());
            metrics.put(prefix + "l2ReadBytes", (double) instance.store().counter(StoreCounter.L2_READ_BYTES));
            metrics.put(prefix + "l2WriteBytes", (double) instance.store().counter(StoreCounter.L2_WRITE_BYTES));
        }
        return metrics;
    }

    /** The most requests any instance got over the mean (1: perfectly even; 0 when nothing was routed). */
    static double loadBalance(long[] routed) {
        long sum = Arrays.stream(routed).sum();
        if (sum == 0) {
            return 0;
        }
        return Arrays.stream(routed).max().orElse(0) / ((double) sum / routed.length);
    }

    private static void put(Map<String, Double> metrics, String prefix, List<RequestOutcome> outcomes) {
        long prompt = 0;
        long gpu = 0;
        long l1 = 0;
        long l2 = 0;
        long[] ttftNs = new long[outcomes.size()];
        for (int i = 0; i < outcomes.size(); i++) {
            RequestOutcome outcome = outcomes.get(i);
            prompt += outcome.promptTokens();
            gpu += outcome.gpuCachedTokens();
            l1 += outcome.l1Tokens();
            l2 += outcome.l2Tokens();
            ttftNs[i] = outcome.firstTokenNs() - outcome.arrivalNs();
        }
        Arrays.sort(ttftNs);
        metrics.put(prefix + "requestsFinished", (double) outcomes.size());
        metrics.put(prefix + "gpuHitRatio", ratio(gpu, prompt));
        metrics.put(prefix + "l1HitRatio", ratio(l1, prompt));
        metrics.put(prefix + "l2HitRatio", ratio(l2, prompt));
        metrics.put(prefix + "ttftP50Ms", ttftNs.length == 0 ? 0 : Percentiles.nearestRank(ttftNs, 50) / 1e6);
        metrics.put(prefix + "ttftP90Ms", ttftNs.length == 0 ? 0 : Percentiles.nearestRank(ttftNs, 90) / 1e6);
    }

    private static double ratio(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }
}
