package tierlab.sim.fault;

import java.util.List;

/**
 * What the fault injector does; every probability is per operation and drawn from the injector's
 * own seeded stream.
 *
 * @param readErrorProbability       an L2 read completes with EIO
 * @param writeErrorProbability      an L2 write completes with EIO
 * @param shortReadProbability       an L2 read returns fewer bytes than asked; the model sees it as a failed read
 * @param latencySpikeProbability    an L2 operation's completion is delayed by {@code latencySpikeNs}
 * @param latencySpikeNs             the size of a spike
 * @param reorderWindowNs            every completion is delayed by a uniform draw in [0, window): completions
 *                                   that were close together arrive in any order
 * @param stuckProbability           an L2 operation completes only after {@code stuckForNs} (a hung command
 *                                   that the driver finally times out)
 * @param stuckForNs                 how long a stuck operation hangs
 * @param failReadTickets            L2 read tickets that fail whatever the probabilities say (a schedule)
 */
public record FaultSettings(double readErrorProbability, double writeErrorProbability, double shortReadProbability,
                            double latencySpikeProbability, long latencySpikeNs, long reorderWindowNs,
                            double stuckProbability, long stuckForNs, List<Long> failReadTickets) {

    public FaultSettings {
        probability("readErrorProbability", readErrorProbability);
        probability("writeErrorProbability", writeErrorProbability);
        probability("shortReadProbability", shortReadProbability);
        probability("latencySpikeProbability", latencySpikeProbability);
        probability("stuckProbability", stuckProbability);
        nonNegative("latencySpikeNs", latencySpikeNs);
        nonNegative("reorderWindowNs", reorderWindowNs);
        nonNegative("stuckForNs", stuckForNs);
        failReadTickets = failReadTickets == null ? List.of() : List.copyOf(failReadTickets);
    }

    public static FaultSettings none() {
        return new FaultSettings(0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    public static FaultSettings readErrors(double probability) {
        return new FaultSettings(probability, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    private static void probability(String field, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("faults." + field + " must be in [0, 1], was " + p);
        }
    }

    private static void nonNegative(String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("faults." + field + " must be >= 0, was " + value);
        }
    }
}
