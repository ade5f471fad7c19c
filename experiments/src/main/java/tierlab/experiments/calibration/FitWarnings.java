package tierlab.experiments.calibration;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a fit did that its figures alone would hide: an optimiser that stopped before converging, a
 * coefficient clamped to its bound. Each becomes a warning of the calibration that ran the fit (its
 * report and its profile's header), so a fitted profile never looks better founded than it is.
 *
 * <p>The fits run on the calibrating thread; a calibration opens a {@link Scope} there and every
 * warning raised inside it is that calibration's. Outside a scope (a fit called on its own, as in a
 * unit test) warnings are not collected.
 */
public final class FitWarnings {

    private static final ThreadLocal<List<String>> CURRENT = new ThreadLocal<>();

    private FitWarnings() {
    }

    /** The warnings of one calibration: open it before the fits, read {@link #lines} after, close it. */
    public static final class Scope implements AutoCloseable {
        private final List<String> previous = CURRENT.get();
        private final List<String> lines = new ArrayList<>();

        private Scope() {
            CURRENT.set(lines);
        }

        public List<String> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void close() {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }

    public static Scope open() {
        return new Scope();
    }

    /** Records {@code line} as a warning of the calibration running on this thread. */
    public static void warn(String line) {
        List<String> lines = CURRENT.get();
        if (lines != null) {
            lines.add(line);
        }
    }

    /** {@code fitted}, or 0 with a warning naming {@code term} where the fit came out negative. */
    public static double atLeastZero(String term, double fitted) {
        if (fitted < 0) {
            warn(String.format(Locale.ROOT, "%s fitted at %.1f, clamped to 0", term, fitted));
            return 0;
        }
        return fitted;
    }
}
