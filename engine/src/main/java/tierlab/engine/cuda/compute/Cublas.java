package tierlab.engine.cuda.compute;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * libcublas (CUDA 13's cublas_api.h) through FFM: one handle bound to one stream, and the two GEMMs the
 * forward pass runs, bf16 operands and results with fp32 accumulation ({@code CUBLAS_COMPUTE_32F}).
 * The header maps {@code cublasCreate} and {@code cublasSetStream} to their {@code _v2} symbols, which
 * are bound; {@code cublasStatus_t} and the enums are 4-byte ints, handles and pointers 8 bytes;
 * {@code alpha}/{@code beta} are host floats (the default pointer mode). cuBLAS is column-major: the
 * row-major {@code C[m×n] = A[m×k]·B[k×n]} is issued as {@code Cᵀ = Bᵀ·Aᵀ} (see {@link #gemmRowMajor}).
 */
public final class Cublas implements AutoCloseable {

    /** {@code CUBLAS_OP_N}, {@code CUBLAS_OP_T} (cublasOperation_t). */
    public static final int OP_N = 0;
    public static final int OP_T = 1;
    /** {@code CUDA_R_16BF} (library_types.h). */
    static final int CUDA_R_16BF = 14;
    /** {@code CUBLAS_COMPUTE_32F} (cublasComputeType_t). */
    static final int COMPUTE_32F = 68;
    /** {@code CUBLAS_GEMM_DEFAULT} (cublasGemmAlgo_t). */
    static final int GEMM_DEFAULT = -1;

    private final MethodHandle gemmEx;
    private final MethodHandle gemmStridedBatchedEx;
    private final MethodHandle destroy;
    private final long handle;
    private final Arena scalars = Arena.ofShared();
    private final MemorySegment one;
    private final MemorySegment zero;
    private final MemorySegment alpha;

    private Cublas(Downcalls lib, long stream, long workspace, long workspaceBytes) {
        // cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t transa, transb, int m, n, k,
        //   const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb,
        //   const void *beta, void *C, cudaDataType Ctype, int ldc, cublasComputeType_t, cublasGemmAlgo_t)
        gemmEx = lib.bind("cublasGemmEx", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        // cublasStatus_t cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda,
        //   long long strideA, B, Btype, ldb, long long strideB, beta, C, Ctype, ldc, long long strideC,
        //   int batchCount, computeType, algo)
        gemmStridedBatchedEx = lib.bind("cublasGemmStridedBatchedEx", FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT,
                JAVA_INT, JAVA_INT));
        destroy = lib.bind("cublasDestroy_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        MethodHandle create = lib.bind("cublasCreate_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        MethodHandle setStream = lib.bind("cublasSetStream_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        // cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t, void *workspace, size_t workspaceSizeInBytes):
        // a workspace of its own, so that no allocation happens while a step is captured into a graph.
        MethodHandle setWorkspace = lib.bind("cublasSetWorkspace_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        one = scalars.allocateFrom(JAVA_FLOAT, 1f);
        zero = scalars.allocateFrom(JAVA_FLOAT, 0f);
        alpha = scalars.allocate(JAVA_FLOAT);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check("cublasCreate", (int) create.invokeExact(out));
            handle = out.get(JAVA_LONG, 0);
            check("cublasSetStream", (int) setStream.invokeExact(handle, stream));
            check("cublasSetWorkspace", (int) setWorkspace.invokeExact(handle, workspace, workspaceBytes));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Opens a handle on {@code stream} with the given device workspace, the library loaded from {@code library}. */
    public static Cublas open(Path library, long stream, long workspace, long workspaceBytes) {
        return new Cublas(Downcalls.load(library), stream, workspace, workspaceBytes);
    }

    /**
     * Row-major {@code C[m×n] = scale·A[m×k]·op(B) + (accumulate ? C : 0)}, {@code A} with row stride {@code lda},
     * {@code B} stored {@code [k×n]} (ldb n) or, with {@code bTransposed}, {@code [n×k]} (ldb k); {@code C} row stride ldc.
     */
    public void gemmRowMajor(int m, int n, int k, float scale, long a, int lda, long b, int ldb, boolean bTransposed,
                             long c, int ldc, boolean accumulate) {
        alpha.set(JAVA_FLOAT, 0, scale);
        // A local of its own: a conditional expression passed straight to invokeExact is typed Object there.
        MemorySegment beta = accumulate ? one : zero;
        int operationB = bTransposed ? OP_T : OP_N;
        try {
            // Column-major Cᵀ[n×m] = op(B)ᵀ[n×k] · Aᵀ[k×m]: B is the first operand.
            check("cublasGemmEx", (int) gemmEx.invokeExact(handle, operationB, OP_N, n, m, k, alpha,
                    b, CUDA_R_16BF, ldb, a, CUDA_R_16BF, lda, beta, c, CUDA_R_16BF, ldc,
                    COMPUTE_32F, GEMM_DEFAULT));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@link #gemmRowMajor} over {@code batches} matrices at the given element strides, never accumulating. */
    public void gemmRowMajorBatched(int m, int n, int k, float scale, long a, int lda, long strideA, long b, int ldb,
                                    long strideB, boolean bTransposed, long c, int ldc, long strideC, int batches) {
        alpha.set(JAVA_FLOAT, 0, scale);
        int operationB = bTransposed ? OP_T : OP_N;
        try {
            check("cublasGemmStridedBatchedEx", (int) gemmStridedBatchedEx.invokeExact(handle, operationB,
                    OP_N, n, m, k, alpha, b, CUDA_R_16BF, ldb, strideB, a, CUDA_R_16BF, lda, strideA, zero, c,
                    CUDA_R_16BF, ldc, strideC, batches, COMPUTE_32F, GEMM_DEFAULT));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static void check(String call, int status) {
        if (status != 0) {
            throw new IllegalStateException(call + " failed: cublasStatus_t " + status);
        }
    }

    @Override
    public void close() {
        try {
            check("cublasDestroy", (int) destroy.invokeExact(handle));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        } finally {
            scalars.close();
        }
    }
}
