package tierlab.model;

/**
 * Validation helpers shared by the model's settings records. Each failure names the setting,
 * so a bad value in an experiment file or a constructor call surfaces as one clear message.
 */
public final class Settings {
    /** Every byte size that reaches O_DIRECT I/O must be a multiple of this. */
    public static final long PAGE_BYTES = 4096;

    private Settings() {}

    public static long positive(String setting, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(setting + " must be > 0, was " + value);
        }
        return value;
    }

    public static long nonNegative(String setting, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(setting + " must be >= 0, was " + value);
        }
        return value;
    }

    public static long pageAligned(String setting, long value) {
        positive(setting, value);
        if (value % PAGE_BYTES != 0) {
            throw new IllegalArgumentException(
                    setting + " must be a multiple of " + PAGE_BYTES + " bytes, was " + value);
        }
        return value;
    }

    public static long roundUpToPage(long bytes) {
        return Math.ceilDiv(bytes, PAGE_BYTES) * PAGE_BYTES;
    }
}
