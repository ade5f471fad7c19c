package tierlab.engine.cuda;

/**
 * A CUDA call failed: its name, the cudaError_t code and CUDA's own name and sentence for it
 * ({@code cudaGetErrorName}, {@code cudaGetErrorString}). Thrown only by setup calls (allocation,
 * streams, registration); a failed copy is a failed completion value instead.
 */
public final class CudaException extends RuntimeException {
    private final String call;
    private final int code;
    private final String errorName;

    public CudaException(String call, int code, String errorName, String errorString) {
        super(call + " failed: " + errorName + " (" + errorString + ", code " + code + ")");
        this.call = call;
        this.code = code;
        this.errorName = errorName;
    }

    public String call() { return call; }
    public int code() { return code; }
    /** CUDA's name of the error, e.g. {@code cudaErrorNoDevice}. */
    public String errorName() { return errorName; }
}
