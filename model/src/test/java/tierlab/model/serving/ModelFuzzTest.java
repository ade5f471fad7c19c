package tierlab.model.serving;

import tierlab.model.request.RequestSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.PayloadLedger;
import tierlab.model.policy.Policies;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.EngineHarness;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/**
 * Seeded random workloads over the whole model (scheduler + store, every KnownBug switch off).
 *
 * <p>Each seed draws a configuration (tp, tiny L1 and L2 rings, policy, headroom, staging, read
 * batching, engine limits, prefetch bound) and a workload of requests over a few prompt chains
 * that share prefixes, submitted in waves (a cold pass, then warm passes). Operations complete in a
 * seeded random order, L2 reads fail at a seeded rate, and running requests are preempted at
 * random between completions. Every invariant is checked after every step; after every wave every
 * request must have finished with nothing left over (I10), no load or staging copy may have moved
 * other bytes than expected (I6, R10) and every visible L2 range must hold its key (I7).
 *
 * <p>System properties: {@code tierlab.fuzz.seeds} (default 1500) runs seeds 0..N-1, starting at
 * {@code tierlab.fuzz.first} (default 0); {@code tierlab.fuzz.seed=N} replays one seed and keeps
 * the last decisions of the trace for the failure message.
 */
class ModelFuzzTest {
    static final int BLOCK_TOKENS = TinyModel.BLOCK_TOKENS;
    static final long BLOCK_BYTES = TinyModel.BLOCK_BYTES;
    static final long MAX_STEPS = 500_000;

    /** A prompt chain: {@code prefixBlocks} keys of chain {@code parent} (-1: none), then {@code newBlocks} own keys. */
    record ChainDef(int parent, int prefixBlocks, int newBlocks) {
        int length() {
            return prefixBlocks + newBlocks;
        }
    }

    /** One request: the first {@code blocks} keys of a chain, plus {@code extraTokens} of a partial block. */
    record Req(long id, int chain, int blocks, int extraTokens, int outputTokens) {
        long promptTokens() {
            return (long) blocks * BLOCK_TOKENS + extraTokens;
        }

        long gpuBlocksNeeded() {
            return Math.ceilDiv(promptTokens() + outputTokens, BLOCK_TOKENS);
        }

        @Override
        public String toString() {
            return "r" + id + "(c" + chain + " " + blocks + "b+" + extraTokens + "t out " + outputTokens + ")";
        }
    }

    /** Everything a run depends on: the configuration, the workload and the driving seed. */
    record Case(long seed, int tp, int l1Blocks, int l2Blocks, String policy, int mruInterval, boolean promotionsAsHeadroom,
                double headroomFraction, int stagingSlots, boolean contiguousStaging, boolean batchL2Reads, int ringCount,
                long writeBatchMaxBytes, int maxNumSeqs, long maxBatchedTokens, long gpuKvBlocks, int prefetchMaxRequests,
                boolean allL1Bypass, double readFailureProbability, double preemptProbability, List<ChainDef> chains,
                List<List<Req>> waves, long driveSeed, Set<tierlab.model.KnownBug> knownBugs) {

        StoreSettings storeSettings() {
            return StoreSettings.builder(TinyModel.geometry(tp), l1Blocks * BLOCK_BYTES, l2Blocks * BLOCK_BYTES)
                    .policy(policy).policyParameter("mruInterval", mruInterval).promotionsAsHeadroom(promotionsAsHeadroom)
                    .headroomFraction(headroomFraction).ringCount(ringCount).batchL2Reads(batchL2Reads)
                    .writeBatchMaxBytes(writeBatchMaxBytes).stagingSlots(stagingSlots).contiguousStaging(contiguousStaging)
                    .knownBugs(knownBugs).build();
        }

        /** The same case with race fixes switched off (ablation hunting). */
        Case withKnownBugs(Set<tierlab.model.KnownBug> bugs) {
            return new Case(seed, tp, l1Blocks, l2Blocks, policy, mruInterval, promotionsAsHeadroom, headroomFraction,
                    stagingSlots, contiguousStaging, batchL2Reads, ringCount, writeBatchMaxBytes, maxNumSeqs, maxBatchedTokens,
                    gpuKvBlocks, prefetchMaxRequests, allL1Bypass, readFailureProbability, preemptProbability, chains, waves,
                    driveSeed, Set.copyOf(bugs));
        }

        SchedulerSettings schedulerSettings() {
            return SchedulerSettings.builder(gpuKvBlocks).maxNumSeqs(maxNumSeqs).maxBatchedTokens(maxBatchedTokens)
                    .prefetchMaxRequests(prefetchMaxRequests).allL1Bypass(allL1Bypass).build();
        }

        List<List<BlockKey>> chainKeys() {
            List<List<BlockKey>> keys = new ArrayList<>();
            for (int c = 0; c < chains.size(); c++) {
                ChainDef def = chains.get(c);
                List<BlockKey> chain = new ArrayList<>();
                if (def.parent() >= 0) {
                    chain.addAll(keys.get(def.parent()).subList(0, def.prefixBlocks()));
                }
                BlockKey parent = chain.isEmpty() ? BlockKey.ROOT : chain.get(chain.size() - 1);
                for (int b = 0; b < def.newBlocks(); b++) {
                    parent = BlockKey.fromTraceId(parent, 1_000 + c, chain.size());
                    chain.add(parent);
                }
                keys.add(List.copyOf(chain));
            }
            return keys;
        }

        String describe() {
            StringBuilder text = new StringBuilder();
            text.append("seed ").append(seed).append(": tp=").append(tp).append(" L1=").append(l1Blocks)
                    .append(" blocks L2=").append(l2Blocks).append(" blocks policy=").append(policy)
                    .append(" mruInterval=").append(mruInterval)
                    .append(" promotionsAsHeadroom=").append(promotionsAsHeadroom).append(" headroomFraction=").append(headroomFraction)
                    .append(" (headroom ").append(storeSettings().headroomBytes()).append(" B)")
                    .append(" stagingSlots=").append(stagingSlots).append(" contiguousStaging=").append(contiguousStaging)
                    .append(" batchL2Reads=").append(batchL2Reads).append(" ringCount=").append(ringCount)
                    .append(" writeBatchMaxBytes=").append(writeBatchMaxBytes)
                    .append("\n  scheduler: maxNumSeqs=").append(maxNumSeqs).append(" maxBatchedTokens=").append(maxBatchedTokens)
                    .append(" gpuKvBlocks=").append(gpuKvBlocks).append(" prefetchMaxRequests=").append(prefetchMaxRequests)
                    .append(" allL1Bypass=").append(allL1Bypass)
                    .append("\n  faults: readFailureProbability=").append(readFailureProbability)
                    .append(" preemptProbability=").append(preemptProbability).append(" driveSeed=").append(driveSeed)
                    .append("\n  chains:");
            for (int c = 0; c < chains.size(); c++) {
                ChainDef def = chains.get(c);
                text.append(" c").append(c).append('=');
                if (def.parent() >= 0) {
                    text.append("c").append(def.parent()).append("[0..").append(def.prefixBlocks()).append(")+");
                }
                text.append(def.newBlocks());
            }
            for (int w = 0; w < waves.size(); w++) {
                text.append("\n  wave ").append(w).append(": ").append(waves.get(w));
            }
            return text.toString();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Drawing a case from a seed
    // ------------------------------------------------------------------------------------------

    static Case draw(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x1234567L);
        int tp = 1 + rnd.nextInt(2);
        int l1Blocks = 2 + rnd.nextInt(39);
        int l2Blocks = 2 + rnd.nextInt(199);
        List<String> policies = Policies.online();
        String policy = policies.get(rnd.nextInt(policies.size()));
        int mruInterval = new int[] {1, 2, 4, 32}[rnd.nextInt(4)];
        boolean promotionsAsHeadroom = rnd.nextBoolean();
        double headroomFraction = new double[] {0, 0.05, 0.2}[rnd.nextInt(3)];
        int stagingSlots = 1 + rnd.nextInt(4);
        boolean contiguousStaging = rnd.nextBoolean();
        boolean batchL2Reads = rnd.nextBoolean();
        int ringCount = 1 + rnd.nextInt(8);
        long laneBytes = BLOCK_BYTES / tp;
        // Mostly the reference 64 MiB; sometimes a few lanes, so grouped stores are split.
        long writeBatchMaxBytes = rnd.nextInt(4) == 0 ? (1 + rnd.nextInt(4)) * laneBytes : 64 * StoreSettings.MIB;

        int chainCount = 1 + rnd.nextInt(8);
        List<ChainDef> chains = new ArrayList<>();
        for (int c = 0; c < chainCount; c++) {
            if (c > 0 && rnd.nextInt(2) == 0) {
                int parent = rnd.nextInt(c);
                int parentLength = chains.get(parent).length();
                int prefix = 1 + rnd.nextInt(parentLength);
                int own = rnd.nextInt(12 - prefix + 1);
                chains.add(new ChainDef(parent, prefix, own));
            } else {
                chains.add(new ChainDef(-1, 0, 1 + rnd.nextInt(12)));
            }
        }
        int requestCount = 5 + rnd.nextInt(36);
        List<Req> requests = new ArrayList<>();
        for (int i = 0; i < requestCount; i++) {
            int chain = rnd.nextInt(chainCount);
            int length = chains.get(chain).length();
            int blocks = rnd.nextBoolean() ? length : 1 + rnd.nextInt(length);
            requests.add(new Req(i, chain, blocks, rnd.nextInt(16), 1 + rnd.nextInt(6)));
        }
        int waveCount = 1 + rnd.nextInt(3);
        List<List<Req>> waves = new ArrayList<>();
        // Wave boundaries: each wave gets at least one request.
        TreeSet<Integer> cuts = new TreeSet<>();
        while (cuts.size() < waveCount - 1) {
            cuts.add(1 + rnd.nextInt(requestCount - 1));
        }
        int from = 0;
        for (int cut : cuts) {
            waves.add(List.copyOf(requests.subList(from, cut)));
            from = cut;
        }
        waves.add(List.copyOf(requests.subList(from, requestCount)));

        long maxNeed = requests.stream().mapToLong(Req::gpuBlocksNeeded).max().orElseThrow();
        int maxNumSeqs = 1 + rnd.nextInt(6);
        long maxBatchedTokens = 16 + rnd.nextInt(512 - 16 + 1);
        // From just enough for the largest request (decode preempts) to plenty.
        long gpuKvBlocks = maxNeed + (rnd.nextBoolean() ? rnd.nextInt(3) : rnd.nextInt((int) (3 * maxNeed) + 1));
        int prefetchMaxRequests = rnd.nextInt(5);
        boolean allL1Bypass = rnd.nextBoolean();
        double readFailureProbability = rnd.nextBoolean() ? 0 : 0.1;
        double preemptProbability = new double[] {0, 0.01, 0.05, 0.2}[rnd.nextInt(4)];
        long driveSeed = rnd.nextLong();
        return new Case(seed, tp, l1Blocks, l2Blocks, policy, mruInterval, promotionsAsHeadroom, headroomFraction, stagingSlots,
                contiguousStaging, batchL2Reads, ringCount, writeBatchMaxBytes, maxNumSeqs, maxBatchedTokens, gpuKvBlocks,
                prefetchMaxRequests, allL1Bypass, readFailureProbability, preemptProbability, List.copyOf(chains),
                List.copyOf(waves), driveSeed, Set.of());
    }

    // ------------------------------------------------------------------------------------------
    // Driving a case
    // ------------------------------------------------------------------------------------------

    /** The result of one run: its decision trace hash (I11) and some counts for the summary. */
    record Outcome(long traceHash, long steps, long preemptions, long failedReads) {}

    /** Mirrors EngineHarness.runToQuiescence, with random completion order, read faults and preemptions. */
    static final class Driver {
        final Case c;
        final DecisionTrace trace;
        final TieredStore store;
        final EngineScheduler scheduler;
        final PayloadLedger ledger;
        final List<List<BlockKey>> chains;
        final List<IoOp> pending = new ArrayList<>();
        final SplittableRandom order;
        final SplittableRandom faults;
        final SplittableRandom preempts;
        long nowNs;
        long steps;
        long preemptions;
        long failedReads;
        int submitted;

        Driver(Case c, int keepLast) {
            this.c = c;
            this.trace = new DecisionTrace(keepLast, null);
            StoreSettings storeSettings = c.storeSettings();
            this.store = new TieredStore(storeSettings, trace);
            this.scheduler = new EngineScheduler(c.schedulerSettings(), store, trace);
            this.ledger = new PayloadLedger(storeSettings.geometry().laneBytes(), storeSettings.geometry().tp());
            this.chains = c.chainKeys();
            SplittableRandom root = new SplittableRandom(c.driveSeed());
            this.order = root.split();
            this.faults = root.split();
            this.preempts = root.split();
        }

        Outcome run() {
            for (int w = 0; w < c.waves().size(); w++) {
                runWave(w, c.waves().get(w));
            }
            return new Outcome(trace.hash(), steps, preemptions, failedReads);
        }

        private void settle() {
            scheduler.tick(nowNs);
            pending.addAll(scheduler.drainOps());
            scheduler.checkInvariants();
        }

        void runWave(int w, List<Req> wave) {
            List<Long> ids = new ArrayList<>();
            for (Req req : wave) {
                List<BlockKey> chain = chains.get(req.chain()).subList(0, req.blocks());
                scheduler.submit(new RequestSpec(req.id(), nowNs, req.promptTokens(), req.outputTokens(), chain), nowNs);
                ids.add(req.id());
            }
            submitted += wave.size();
            // Bounded so a wave always ends: recompute preemption must not livelock the run.
            long preemptBudget = 2L * wave.size();
            settle();
            while (!pending.isEmpty()) {
                if (++steps > MAX_STEPS) {
                    throw new AssertionError("wave " + w + ": no quiescence after " + MAX_STEPS + " steps; leftovers "
                            + store.leftovers() + ", waiting " + scheduler.waitingCount() + ", running " + scheduler.runningCount());
                }
                IoOp op = pending.remove(order.nextInt(pending.size()));
                nowNs += 1_000;
                boolean succeeded = !(op instanceof IoOp.L2Read) || faults.nextDouble() >= c.readFailureProbability();
                if (!succeeded) {
                    failedReads++;
                }
                ledger.apply(op, succeeded);
                scheduler.onCompletion(succeeded ? IoCompletion.ok(op.ticket()) : IoCompletion.failed(op.ticket(), "EIO"), nowNs);
                settle();
                if (preemptBudget > 0 && c.preemptProbability() > 0 && preempts.nextDouble() < c.preemptProbability()) {
                    long victim = ids.get(preempts.nextInt(ids.size()));
                    // The API refuses requests that are not running, or whose load or acquire is in flight.
                    if (scheduler.preempt(victim, nowNs)) {
                        preemptions++;
                        preemptBudget--;
                        scheduler.checkInvariants();
                        settle();
                    }
                }
            }
            // Quiescent: nothing is pending, so the wave must be over.
            List<Long> finished = scheduler.finishedIds();
            List<Long> unfinished = new ArrayList<>();
            for (long id : ids) {
                if (!finished.contains(id)) {
                    unfinished.add(id);
                }
            }
            assertTrue(unfinished.isEmpty(), "wave " + w + ": I10: nothing pending but requests " + unfinished
                    + " never finished (waiting " + scheduler.waitingCount() + ", running " + scheduler.runningCount()
                    + ", step " + scheduler.stepPhase() + ", leftovers " + store.leftovers() + ")");
            assertTrue(scheduler.allFinished(), "wave " + w + ": allFinished");
            assertEquals(submitted, finished.size(), "wave " + w + ": finished count");
            assertEquals(0, scheduler.waitingCount(), "wave " + w + ": waiting");
            assertEquals(0, scheduler.runningCount(), "wave " + w + ": running");
            assertEquals(0, scheduler.activePrefetches(), "wave " + w + ": active prefetches");
            assertEquals(c.gpuKvBlocks(), scheduler.freeGpuBlockCount(), "wave " + w + ": GPU blocks leaked");
            assertEquals(List.of(), store.leftovers(), "wave " + w + ": I10 leftovers");
            assertEquals(0, ledger.loadMismatches(), "wave " + w + ": I6 load mismatches " + ledger.mismatchExamples());
            assertEquals(0, ledger.stagingMismatches(), "wave " + w + ": staging mismatches (R10) " + ledger.mismatchExamples());
            long wrongL2 = store.l2Disagreements(ledger);
            assertEquals(0, wrongL2, "wave " + w + ": I7 L2 units not holding their key " + ledger.mismatchExamples());
        }
    }

    /** Runs one case; a failure names the seed, the case and how to replay it. */
    static Outcome runCase(Case c, int keepLast) {
        Driver driver = new Driver(c, keepLast);
        try {
            return driver.run();
        } catch (Throwable failure) {
            StringBuilder text = new StringBuilder();
            text.append("fuzz seed ").append(c.seed()).append(" failed after ").append(driver.steps).append(" steps, ")
                    .append(driver.preemptions).append(" preemptions: ").append(failure)
                    .append("\n  replay: -Dtierlab.fuzz.seed=").append(c.seed())
                    .append("\n  ").append(c.describe());
            if (keepLast > 0) {
                text.append("\n  last decisions: ").append(driver.trace.recent());
            }
            throw new AssertionError(text.toString(), failure);
        }
    }

    @Test
    void randomWorkloadsKeepEveryInvariant() {
        String one = System.getProperty("tierlab.fuzz.seed");
        if (one != null && !one.isBlank()) {
            long seed = Long.parseLong(one.trim());
            Case c = draw(seed);
            System.out.println(c.describe());
            Outcome outcome = runCase(c, 80);
            System.out.println("seed " + seed + " passed: " + outcome);
            assertEquals(outcome.traceHash(), runCase(c, 0).traceHash(), "I11: seed " + seed + " is not deterministic");
            return;
        }
        long first = Long.getLong("tierlab.fuzz.first", 0L);
        long count = Long.getLong("tierlab.fuzz.seeds", 1500L);
        List<Long> failing = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        long steps = 0;
        long preemptions = 0;
        long started = System.nanoTime();
        for (long seed = first; seed < first + count; seed++) {
            Case c = draw(seed);
            try {
                Outcome outcome = runCase(c, 0);
                steps += outcome.steps();
                preemptions += outcome.preemptions();
                if (seed % 10 == 0) {
                    // I11: the same seed gives the same decision trace, bit for bit.
                    long again = runCase(c, 0).traceHash();
                    if (again != outcome.traceHash()) {
                        throw new AssertionError("fuzz seed " + seed + ": I11: decision trace differs between two runs"
                                + "\n  replay: -Dtierlab.fuzz.seed=" + seed + "\n  " + c.describe());
                    }
                }
            } catch (AssertionError failure) {
                failing.add(seed);
                String message = String.valueOf(failure.getMessage());
                System.out.println("FAIL " + message.lines().findFirst().orElse(message));
                if (messages.size() < 5) {
                    messages.add(failure.getMessage());
                }
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("ModelFuzzTest: " + count + " seeds from " + first + " in " + millis + " ms, " + steps + " steps, "
                + preemptions + " preemptions, " + failing.size() + " failing" + (failing.isEmpty() ? "" : ": " + failing));
        if (!failing.isEmpty()) {
            throw new AssertionError(failing.size() + " of " + count + " seeds failed: " + failing + "\n\n"
                    + String.join("\n\n", messages));
        }
    }
}
