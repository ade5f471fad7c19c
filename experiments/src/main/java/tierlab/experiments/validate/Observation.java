package tierlab.experiments.validate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import tierlab.experiments.run.RunObserver;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.model.store.StoreCounter;
import tierlab.model.store.TieredStore;
import tierlab.model.trace.DecisionTrace;
import tierlab.metrics.PassMetrics;

/**
 * What one run of a workload showed, live or simulated, in the same terms: per-pass metrics, every
 * request's TTFT, the store's hit/miss decision for every request, and L2 bytes over time.
 *
 * @param lookups      per request, in the order the store decided them: the decision that admitted
 *                     it (its last lookup: hit class, first block, blocks hit); blocks before
 *                     {@code startBlock + hitBlocks} came from the store, the rest were computed
 * @param lookupCalls  lookups made in all (a request parked or waiting for a lease looks up again)
 * @param decisionKinds how many decisions of each kind the run made (promotion-join, evict, ...): the
 *                     decisions beyond lookups, whose counts show where two runs took different paths
 * @param l2Timeline   {time from the run's start (ns), L2 bytes read so far, L2 bytes written so far}, counted
 *                     as their operations complete
 * @param wallNs       live: the wall time of the passes; sim: the wall time the simulation took
 * @param realMatches  live: the payload checks of loads and staging copies that held; sim: 0 (the simulator's
 *                     ledger counts what fails)
 * @param realMismatches live: the payload checks that failed; sim: the ledger's loads of bytes not their key's
 * @param backend      the L2 storage backend (and for live runs whether L1 is mlocked)
 * @param gpuCopies    how KV moved between L1 and the GPU: "cuda: DEVICE; ...", "host buffers: WHY", or the
 *                     simulator's PCIe model
 * @param loadedLanes  lanes copied to the GPU by loads over the whole run (the store's GPU load bytes /
 *                     lane size); with verification every one of them is a payload check
 */
record Observation(String mode, int repeat, List<PassMetrics> passes, Map<Long, Long> ttftNsByRequest,
                   Map<Long, Decision> lookups, long lookupCalls, Map<String, Long> decisionKinds, List<long[]> l2Timeline, long wallNs, long realMatches,
                   long realMismatches, String failure, String decisionHash, String backend, String gpuCopies,
                   long loadedLanes) {

    /** One request's lookup decision. */
    record Decision(long requestId, HitClass hitClass, int startBlock, int hitBlocks) {
        @Override
        public String toString() {
            return hitClass + " from block " + startBlock + ", " + hitBlocks + " blocks hit";
        }
    }

    /**
     * Watches a run as the executor drives it: records lookups from its decision trace and samples
     * L2 bytes against the run's clock. It only observes; the decisions and their hash are the run's own.
     */
    static final class Recorder implements RunObserver, DecisionTrace.DecisionListener {
        /** At most one timeline point per this much time: a few hundred points per run. */
        private static final long TIMELINE_STEP_NS = 50_000_000L;
        private LongSupplier clock = () -> 0;
        private TieredStore store;
        private long laneBytes;
        private boolean pointTaken;
        private long lastPointNs;
        /** The run's clock at the end of its last pass: a live run's wall time over its passes. */
        long passesEndNs;
        final Map<Long, Decision> lookups = new LinkedHashMap<>();
        long lookupCalls;
        final Map<String, Long> kinds = new java.util.TreeMap<>();
        final List<long[]> timeline = new ArrayList<>();

        @Override
        public DecisionTrace.DecisionListener decisions() {
            return this;
        }

        @Override
        public void started(TieredStore observed, LongSupplier runClockNs) {
            this.store = observed;
            this.clock = runClockNs;
            this.laneBytes = observed.settings().geometry().laneBytes();
        }

        @Override
        public void passEnded(String pass, long runClockNs) {
            point(runClockNs);
            passesEndNs = runClockNs;
        }

        @Override
        public void onDecision(String kind, long[] values) {
            kinds.merge(kind, 1L, Long::sum);
            if (kind.equals("lookup")) {
                lookupCalls++;
                // Re-inserted so the map's order is the order of each request's final decision.
                lookups.remove(values[0]);
                lookups.put(values[0], new Decision(values[0], HitClass.values()[(int) values[1]], (int) values[2], (int) values[3]));
            }
            if (store != null) {
                long nowNs = clock.getAsLong();
                if (!pointTaken || nowNs - lastPointNs >= TIMELINE_STEP_NS) {
                    point(nowNs);
                }
            }
        }

        /** Lanes copied to the GPU by loads over the whole run; 0 for a run that never started. */
        long loadedLanes() {
            return store == null ? 0 : store.counter(StoreCounter.GPU_LOAD_BYTES) / laneBytes;
        }

        /**
         * A point now (also at the end of a pass, so the last bytes are on the chart). Bytes are
         * counted when their operation completes (published promotions, committed store units, one
         * lane each), the same rule in both modes, so the chart shows when the device delivered.
         */
        private void point(long nowNs) {
            timeline.add(new long[] {nowNs, store.counter(StoreCounter.PROMOTIONS_PUBLISHED) * laneBytes,
                    store.counter(StoreCounter.STORE_UNITS_COMMITTED) * laneBytes});
            lastPointNs = nowNs;
            pointTaken = true;
        }
    }
}
