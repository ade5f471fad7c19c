package tierlab.model.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;
import tierlab.model.testkit.TinyModel;

/**
 * Lookup and classification of a 64-block chain against a store with 100,000 resident L1
 * entries (target: at most 1 µs). Run with {@code ./tierlab bench model LookupBenchmark}.
 *
 * <p>{@code l1HitWithLease} is the full atomic path of an L1 hit: walk, classify, create the lease,
 * refresh recency; the lease is released in the same invocation so the state stays steady.
 * {@code l2HitClassify} is lookup and classification alone (an L2 hit takes no lease);
 * {@code miss} walks a chain whose first key is absent. {@code l1HitWithLease} rotates over all
 * 1,570 chains, so every lookup touches memory the CPU caches no longer hold (the realistic case
 * for a serving engine); {@code l1HitWithLeaseCacheWarm} repeats one chain.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LookupBenchmark {
    static final int CHAIN_BLOCKS = 64;
    static final int RESIDENT_ENTRIES = 100_000;

    TieredStore store;
    List<List<BlockKey>> chains;
    List<BlockKey> absent;
    int next;
    long requestId = 1_000_000;

    /** Chains stored first and then pushed out of L1 by the resident ones: lookups classify them L2, no lease. */
    List<List<BlockKey>> evictedChains;
    int nextEvicted;

    @Setup(Level.Trial)
    public void fill() {
        Geometry geometry = TinyModel.geometry(1);
        long lane = geometry.laneBytes();
        // 1,570 resident chains (100,480 units) after 4 cold ones (256 units); with 1% headroom the
        // high water is 100,485 units, so save admission evicts the cold chains and keeps >= 100k.
        long l1Units = 101_500;
        StoreSettings settings = StoreSettings.defaults(geometry, l1Units * lane, 120_000 * lane).withHeadroomFraction(0.01);
        store = new TieredStore(settings);
        List<List<BlockKey>> cold = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            cold.add(storeChain(-1 - c));
        }
        chains = new ArrayList<>();
        for (int c = 0; c < 1_570; c++) {
            chains.add(storeChain(c));
        }
        if (store.residentCount() < RESIDENT_ENTRIES) {
            throw new IllegalStateException("only " + store.residentCount() + " entries resident");
        }
        evictedChains = cold.subList(0, 3);
        for (List<BlockKey> chain : evictedChains) {
            LookupResult result = store.lookup(0, chain, 0, CHAIN_BLOCKS * 16L + 1, 0);
            if (result.hitClass() != LookupResult.HitClass.L2) {
                throw new IllegalStateException("an evicted chain classified " + result.hitClass());
            }
        }
        absent = new ArrayList<>();
        BlockKey parent = BlockKey.ROOT;
        for (int b = 0; b < CHAIN_BLOCKS; b++) {
            parent = BlockKey.fromTraceId(parent, Long.MIN_VALUE, b);
            absent.add(parent);
        }
    }

    private List<BlockKey> storeChain(long id) {
        List<BlockKey> chain = new ArrayList<>();
        List<Long> gpu = new ArrayList<>();
        BlockKey parent = BlockKey.ROOT;
        for (int b = 0; b < CHAIN_BLOCKS; b++) {
            parent = BlockKey.fromTraceId(parent, id, b);
            chain.add(parent);
            gpu.add((long) b);
        }
        store.enqueueSave(id + 10_000, chain, 0, CHAIN_BLOCKS, gpu, 0);
        drain();
        return chain;
    }

    /** Walk and classify only: 64 index probes and residency checks, no lease (an L2 hit takes none). */
    @Benchmark
    public LookupResult l2HitClassify() {
        List<BlockKey> chain = evictedChains.get(nextEvicted);
        nextEvicted = (nextEvicted + 1) % evictedChains.size();
        return store.lookup(requestId++, chain, 0, CHAIN_BLOCKS * 16L + 1, 0);
    }

    private void drain() {
        List<IoOp> ops = store.drainOps();
        while (!ops.isEmpty()) {
            for (IoOp op : ops) {
                store.onCompletion(IoCompletion.ok(op.ticket()), 0);
            }
            ops = store.drainOps();
        }
    }

    @Benchmark
    public LookupResult l1HitWithLease() {
        List<BlockKey> chain = chains.get(next);
        next = (next + 1) % chains.size();
        long id = requestId++;
        LookupResult result = store.lookup(id, chain, 0, CHAIN_BLOCKS * 16L + 1, 0);
        if (result.hitClass() != LookupResult.HitClass.L1) {
            throw new IllegalStateException("expected an L1 hit, got " + result.hitClass());
        }
        store.releaseLease(id, 0);
        return result;
    }

    /** The same chain every time: its index entries, slices and policy nodes stay in the CPU caches. */
    @Benchmark
    public LookupResult l1HitWithLeaseCacheWarm() {
        long id = requestId++;
        LookupResult result = store.lookup(id, chains.get(0), 0, CHAIN_BLOCKS * 16L + 1, 0);
        store.releaseLease(id, 0);
        return result;
    }

    @Benchmark
    public LookupResult miss() {
        return store.lookup(requestId++, absent, 0, CHAIN_BLOCKS * 16L + 1, 0);
    }
}
