package tierlab.engine.cuda.compute;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tierlab.engine.cuda.CudaApi;

/**
 * Times model-shaped forward passes ({@link CudaForwardPass}) over a grid of step shapes: per shape a KV
 * pool of one layer's blocks (random bf16, every layer reads it, as {@code docs/hosts/h200/torch_steps.py}
 * reuses one layer's KV), two eager warm-up steps, then the step captured into a CUDA graph when the
 * capture works (else eager, said so), and the median of {@value #TIMED} replays timed by CUDA events.
 */
public final class StepBench {

    /** Timed replays per shape (the median is reported). */
    public static final int TIMED = 7;
    static final int WARM_UP = 2;
    /** Tokens per KV block in the benchmark (vLLM's default block size). */
    public static final int BLOCK_TOKENS = 16;

    /** One step shape: {@code batch} sequences, each {@code newTokens} over {@code contextTokens}. */
    public record Shape(String kind, int batch, int newTokens, int contextTokens) {}

    /** One measured shape: the median, every replay, and whether a graph ran it. */
    public record Result(Shape shape, double medianMs, double[] replaysMs, boolean graph, String failure) {}

    /** torch_steps.py's grid, so the two tables compare row by row. */
    public static List<Shape> defaultGrid() {
        List<Shape> shapes = new ArrayList<>();
        for (int n : new int[] {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768}) {
            shapes.add(new Shape("prefill", 1, n, 0));
        }
        for (int n : new int[] {512, 2048}) {
            for (int c : new int[] {1024, 2048, 4096, 8192, 16384}) {
                shapes.add(new Shape("prefill", 1, n, c));
            }
        }
        shapes.add(new Shape("prefill", 4, 512, 0));
        shapes.add(new Shape("prefill", 4, 512, 2048));
        shapes.add(new Shape("prefill", 8, 256, 0));
        for (int b : new int[] {1, 4, 16, 64, 128}) {
            for (int c : new int[] {256, 1024, 4096, 16384}) {
                shapes.add(new Shape("decode", b, 1, c));
            }
        }
        return shapes;
    }

    private final GpuContext gpu;
    private final CudaForwardPass pass;
    private final boolean graphs;

    public StepBench(GpuContext gpu, ForwardLayout layout, boolean graphs) {
        this(gpu, layout, graphs, AttentionPath.FAST);
    }

    public StepBench(GpuContext gpu, ForwardLayout layout, boolean graphs, AttentionPath attention) {
        this.gpu = gpu;
        this.pass = new CudaForwardPass(gpu, layout, 0, 1, attention);
        this.graphs = graphs;
    }

    /** Measures every shape; a shape that fails (out of memory, say) is a result with its failure, and the rest go on. */
    public List<Result> run(List<Shape> shapes, double budgetSeconds, PrintStream log) {
        long started = System.nanoTime();
        List<Result> results = new ArrayList<>();
        for (Shape shape : shapes) {
            if ((System.nanoTime() - started) / 1e9 > budgetSeconds) {
                log.println("budget of " + budgetSeconds + " s spent: stopped before " + shape);
                break;
            }
            Result result = measure(shape);
            results.add(result);
            log.printf("%s %s batch %d new %d ctx %d: %s%n", pass.layout().shape().name(), shape.kind(), shape.batch(),
                    shape.newTokens(), shape.contextTokens(), result.failure() != null ? "failed: " + result.failure()
                            : String.format("%.3f ms (%s)", result.medianMs(), result.graph() ? "graph" : "eager"));
            log.flush();
        }
        return results;
    }

    private Result measure(Shape shape) {
        CudaApi rt = gpu.runtime();
        ForwardLayout layout = pass.layout();
        int blocksPerSequence = layout.blocksFor((long) shape.newTokens() + shape.contextTokens());
        long poolBytes = (long) shape.batch() * blocksPerSequence * layout.kvLayerBytesPerBlock();
        long pool = 0;
        long graph = 0;
        long start = 0;
        long end = 0;
        try {
            pool = rt.malloc(poolBytes);
            pass.fillKv(pool, poolBytes, 1f);
            ForwardBatch batch = batch(shape, pool, blocksPerSequence, layout.kvLayerBytesPerBlock());
            pass.reserve(batch);
            for (int i = 0; i < WARM_UP; i++) {
                pass.enqueue(batch);
            }
            pass.synchronize();
            if (graphs) {
                graph = pass.capture(batch);
            }
            start = rt.eventCreate(CudaApi.EVENT_DEFAULT);
            end = rt.eventCreate(CudaApi.EVENT_DEFAULT);
            double[] replays = new double[TIMED];
            for (int i = 0; i < TIMED; i++) {
                rt.eventRecord(start, pass.stream());
                if (graph != 0) {
                    gpu.calls().graphLaunch(graph, pass.stream());
                } else {
                    pass.enqueue(batch);
                }
                rt.eventRecord(end, pass.stream());
                int code = rt.eventSynchronize(end);
                if (code != CudaApi.SUCCESS) {
                    throw new IllegalStateException("the step failed on the GPU: " + rt.errorName(code));
                }
                replays[i] = rt.eventElapsedMs(start, end);
            }
            double[] sorted = replays.clone();
            Arrays.sort(sorted);
            return new Result(shape, sorted[TIMED / 2], replays, graph != 0, null);
        } catch (RuntimeException e) {
            return new Result(shape, Double.NaN, new double[0], false, e.getMessage());
        } finally {
            int ignored = rt.streamSynchronize(pass.stream());
            if (graph != 0) {
                gpu.calls().graphDestroy(graph);
            }
            if (start != 0) {
                rt.eventDestroy(start);
            }
            if (end != 0) {
                rt.eventDestroy(end);
            }
            if (pool != 0) {
                rt.free(pool);
            }
        }
    }

    /** {@code batch} sequences, each with its own consecutive blocks of the pool. */
    static ForwardBatch batch(Shape shape, long pool, int blocksPerSequence, long blockBytes) {
        int[] fresh = new int[shape.batch()];
        int[] context = new int[shape.batch()];
        long[][] tables = new long[shape.batch()][blocksPerSequence];
        for (int s = 0; s < shape.batch(); s++) {
            fresh[s] = shape.newTokens();
            context[s] = shape.contextTokens();
            for (int k = 0; k < blocksPerSequence; k++) {
                tables[s][k] = pool + ((long) s * blocksPerSequence + k) * blockBytes;
            }
        }
        return new ForwardBatch(fresh, context, tables);
    }

    public String describe() {
        return pass.layout().shape().name() + " on " + gpu.description() + ", attention " + pass.attention();
    }

    public void close() {
        pass.close();
    }
}
