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
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.store.LookupResult;
import tierlab.model.store.StoreSettings;
import tierlab.model.store.TieredStore;

/**
 * Lookup and classification of a 64-block chain against a store with 100,000 resident L1
 * entries (target: at most 1 µs). Run with {@code ./tierlab bench model LookupBenchmark}.
 *
 * <p>{@code l1HitWithLease} is the full atomic path of an L1 hit: walk, classify, create the lease,
 * refresh recency; the lease is released in the same invocation so the state stays steady.
 * {@code miss} walks a chain whose first key is absent. {@code l1HitWithLease} rotates over all
 * 1,563 chains, so every lookup touches memory the CPU caches no longer hold (the realistic case
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

    @Setup(Level.Trial)
    public void fill() {
        ModelShape tiny = new ModelShape("tiny", 1, 1, 128, 2);
        Geometry geometry = new Geometry(tiny, 16, 1);
        long lane = geometry.laneBytes();
        long l1Units = 110_000;
        StoreSettings settings = StoreSettings.defaults(geometry, l1Units * lane, 120_000 * lane).withHeadroomFraction(0.01);
        store = new TieredStore(settings);
        chains = new ArrayList<>();
        int chainCount = Math.ceilDiv(RESIDENT_ENTRIES, CHAIN_BLOCKS);
        for (int c = 0; c < chainCount; c++) {
            List<BlockKey> chain = new ArrayList<>();
            BlockKey parent = BlockKey.ROOT;
            for (int b = 0; b < CHAIN_BLOCKS; b++) {
                parent = BlockKey.fromTraceId(parent, c, b);
                chain.add(parent);
            }
            chains.add(chain);
            List<Long> gpu = new ArrayList<>();
            for (int b = 0; b < CHAIN_BLOCKS; b++) {
                gpu.add((long) b);
            }
            store.enqueueSave(c, chain, 0, CHAIN_BLOCKS, gpu, 0);
            drain();
        }
        if (store.residentCount() < RESIDENT_ENTRIES) {
            throw new IllegalStateException("only " + store.residentCount() + " entries resident");
        }
        absent = new ArrayList<>();
        BlockKey parent = BlockKey.ROOT;
        for (int b = 0; b < CHAIN_BLOCKS; b++) {
            parent = BlockKey.fromTraceId(parent, -1, b);
            absent.add(parent);
        }
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
