package tierlab.sim.device;

/**
 * One simulated storage device's timing: when an operation that reaches the device completes. The
 * host side (the submitting thread, the virtual clock, the all-in-host-memory baseline) is
 * {@link SimStoragePort}'s and the same for every device, so a new device model is this one method
 * over its own state, one {@link StorageSection} and one {@link StorageModels} entry.
 *
 * <p>Implementations are deterministic: the same arrivals (and seed) give the same completions.
 */
public interface StorageDevice {

    /**
     * An operation of {@code lengthBytes} reaching the device at {@code arrivalNs}: returns when it
     * completes ({@code >= arrivalNs}). Arrivals come in non-decreasing time order.
     */
    long submit(boolean read, long lengthBytes, long arrivalNs);

    /**
     * The same at L2 offset {@code offsetBytes}, for a device whose timing depends on where a write
     * lands (first writes into a preallocated file's untouched blocks); by default the offset is ignored.
     */
    default long submit(boolean read, long offsetBytes, long lengthBytes, long arrivalNs) {
        return submit(read, lengthBytes, arrivalNs);
    }

    /** Throws if the device model's own state is inconsistent (nothing to check by default). */
    default void checkInvariants() {
    }

    /** Reads submitted so far. */
    long readOps();

    /** Writes submitted so far. */
    long writeOps();
}
