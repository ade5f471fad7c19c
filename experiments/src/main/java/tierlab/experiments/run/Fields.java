package tierlab.experiments.run;

/**
 * The small checks and conversions every section of an experiment file shares: defaults, bounds
 * with messages that start with the field path, GiB to page-aligned bytes, milliseconds to nanoseconds.
 */
final class Fields {

    static final double GIB = 1L << 30;

    private Fields() {
    }

    @FunctionalInterface
    interface Build<T> {
        T build();
    }

    /** Runs a model constructor; its own message names the setting, prefixed here by the file's section. */
    static <T> T withField(String section, Build<T> build) {
        try {
            return build.build();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "invalid" : e.getMessage();
            throw new IllegalArgumentException(message.startsWith(section) ? message : section + ": " + message, e);
        }
    }

    static long pageAligned(double gib) {
        long bytes = Math.round(gib * GIB);
        return Math.max(4096, bytes / 4096 * 4096);
    }

    static double positive(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": must be > 0, was " + value);
        }
        return value;
    }

    static double nonNegative(String field, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": must be >= 0, was " + value);
        }
        return value;
    }

    static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }

    static long nanos(String field, Double milliseconds) {
        return milliseconds == null ? 0 : Math.round(nonNegative(field, milliseconds) * 1e6);
    }
}
